/** The sample requests of attribute values (lib/samples.ts), in the order they run: the create makes value 1 of attribute 1, which the later samples read, change and delete. */
import { defineSamples } from '../samples.js';

export const samples = defineSamples([
  { route: 'attribute-avs/create', url: '/api/attribute-avs', body: { attribute_id: 1, title: 'Large', locale: 'en_US' }, needs: ['attributes/create'] },
  { route: 'attribute-avs/list', url: '/api/attribute-avs?attribute=1' },
  // A value of attribute 2 (the attributes' batch sample makes it), so that attribute 1 is left without values for its delete.
  { route: 'attribute-avs/batch', url: '/api/attribute-avs/batch', body: { rows: [{ op: 'create', attribute_id: 2, title: 'Red', locale: 'en_US' }] }, needs: ['attributes/batch'] },
  { route: 'attribute-avs/get', url: '/api/attribute-avs/1', params: { entityId: '1' }, needs: ['attribute-avs/create'] },
  { route: 'attribute-avs/update', url: '/api/attribute-avs', body: { id: 1, locale: 'fr_FR', title: 'Grand' }, needs: ['attribute-avs/create'] },
  { route: 'attribute-avs/delete', url: '/api/attribute-avs/1', params: { entityId: '1' }, needs: ['attribute-avs/create'] },
]);
