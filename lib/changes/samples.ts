/**
 * The sample requests of the change feed (lib/samples.ts), in the order they run: a page of the feed, once a write made a change.
 */
import { defineSamples } from '../samples.js';

export const samples = defineSamples([
  {
    route: 'changes/list',
    url: '/api/changes?limit=5',
    needs: ['tax-rules/create'],
  },
]);
