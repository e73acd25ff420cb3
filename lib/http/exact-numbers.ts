/**
 * The JSON body, with its numbers taken exactly as written (docs/conventions.md). @middy/http-json-body-parser
 * parses and refuses what is not JSON; then `JSON.parse` reads the same text again with a reviver
 * that gets each number's source text (its `reviver` option cannot serve: the parser's wrapper passes
 * a reviver the key and value only). A number whose text is not what JavaScript prints for the
 * double it became (more digits than a double holds, trailing zeros, an exponent) is kept as that
 * text, and each field's schema takes the decimal it denotes or refuses it (`JsonNumberText`). The
 * second parse costs little: bodies are at most 64 KiB.
 */
import httpJsonBodyParser from '@middy/http-json-body-parser';
import { JsonNumberText } from '../validation.js';
import { rawBody, type HttpMiddleware } from './types.js';

type SourceContext = { source?: string };

function keepNumberText(_key: string, value: unknown, context?: SourceContext): unknown {
  if (typeof value !== 'number' || context?.source === undefined || String(value) === context.source) return value;
  return new JsonNumberText(context.source);
}

export const exactJsonBody = (): HttpMiddleware => {
  const parser = httpJsonBodyParser() as HttpMiddleware;
  return {
    before: async (request) => {
      const text = rawBody(request.event).toString('utf8');
      await parser.before?.(request);
      request.event.body = JSON.parse(text, keepNumberText as (key: string, value: unknown) => unknown);
    },
  };
};
