/** Inputs of the reference routes: their lists are by id, either way, in a language. */
import * as v from 'valibot';
import { langParam, langQuery } from '../i18n.js';
import { orderParam } from '../validation.js';

export const ReferenceListQuery = v.object({ order: orderParam(['id']), lang: langParam() });
export const ReferenceQuery = langQuery();

export type ReferenceListInput = v.InferOutput<typeof ReferenceListQuery>;
