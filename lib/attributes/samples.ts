/** The sample requests of attributes (lib/samples.ts), in the order they run: the create makes attribute 1 and the batch attribute 2, whose values the attribute values' samples make; attribute 1's delete waits for its value to go. */
import { defineSamples } from '../samples.js';

export const samples = defineSamples([
  { route: 'attributes/create', url: '/api/attributes', body: { title: 'Size', locale: 'en_US' } },
  { route: 'attributes/list', url: '/api/attributes' },
  { route: 'attributes/batch', url: '/api/attributes/batch', body: { rows: [{ op: 'create', title: 'Colour', locale: 'en_US' }] } },
  { route: 'attributes/get', url: '/api/attributes/1', params: { entityId: '1' }, needs: ['attributes/create'] },
  { route: 'attributes/update', url: '/api/attributes', body: { id: 1, locale: 'fr_FR', title: 'Taille' }, needs: ['attributes/create'] },
  { route: 'attributes/delete', url: '/api/attributes/1', params: { entityId: '1' }, needs: ['attributes/create', 'attribute-avs/delete'] },
]);
