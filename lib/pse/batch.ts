/**
 * Sale elements in batches (docs/batches-and-client.md, docs/api.md): each row one entry of the single routes, its fields
 * named as the row's; upsert by `reference` (an ERP's stock sync).
 */
import { defineBatch } from '../batch/declaration.js';
import { mapWrite } from '../db/write-plan.js';
import { InvalidInput } from '../errors.js';
import { identityOf } from '../identity.js';
import { present } from '../present.js';
import { saleElements } from '../products/sale-elements.js';
import type { Row } from '../row.js';
import { createPse, deletePse, getPse, updatePse, type Naming } from './operations.js';
import { PseBatchEntry, PseBatchUpdate, type PseBatchEntryInput } from './schema.js';

/** A row's fields are named as they are (the batch names them with the row). */
const asTheRow = (): Naming => (field) => field;
const onlyRow = (rows: readonly Row[]): Row => present(rows[0], 'the row written');

/** A create needs what only a new sale element does: its product and the currency of its price. */
function created(input: PseBatchEntryInput) {
  const missing = (['product_id', 'currency_id'] as const).filter((field) => input[field] === undefined);
  if (missing.length) throw new InvalidInput(missing.map((field) => ({ field, message: 'is required to create a sale element' })));
  return createPse({ pse: [{ ...input, product_id: present(input.product_id, 'product_id'), currency_id: present(input.currency_id, 'currency_id') }] }, undefined, asTheRow);
}

/**
 * What an upsert sends, as an update of the sale element its reference names: its product stays its
 * own, and its reference is what found it (one that reads the same is the same: it is kept as
 * stored), so that a row of `reference` and `quantity` is the stock change it is, and takes the
 * stock-only path (updatePse).
 */
const asUpdate = ({ product_id: _, reference: __, ...fields }: PseBatchEntryInput) => fields;

export const pseBatch = defineBatch({
  folder: 'pse',
  grant: 'product',
  create: { schema: PseBatchEntry, run: (input) => mapWrite(created(input), onlyRow) },
  update: {
    schema: PseBatchUpdate,
    idInBody: true,
    run: (id, { id: _, ...fields }, version) => mapWrite(updatePse(id, { pse: [fields] }, undefined, version, asTheRow), onlyRow),
  },
  remove: deletePse,
  read: async (id) => onlyRow(await getPse(id, {})),
  upsert: {
    field: 'reference',
    key: (input) => identityOf(input.reference),
    // The lock alone: the update that follows reads the sale element itself.
    find: (input) => saleElements.ownerByLock('ref', input.reference),
    update: (id, input) => mapWrite(updatePse(id, { pse: [asUpdate(input)] }, undefined, undefined, asTheRow), onlyRow),
  },
});
