/**
 * The sample requests of brands (lib/samples.ts), in the order they run: the create makes brand 1;
 * its delete comes after the products' samples, which may name it.
 */
import { defineSamples } from '../samples.js';

export const samples = defineSamples([
  { route: 'brands/create', url: '/api/brands', body: { title: 'Sample brand', locale: 'en_US', visible: 1 } },
  { route: 'brands/list', url: '/api/brands?order=manual' },
  { route: 'brands/batch', url: '/api/brands/batch', body: { rows: [{ op: 'create', title: 'Batch brand', locale: 'en_US' }] } },
  { route: 'brands/get', url: '/api/brands/1', params: { entityId: '1' }, needs: ['brands/create'] },
  { route: 'brands/update', url: '/api/brands', body: { id: 1, locale: 'fr_FR', title: 'Marque exemple', meta_title: 'Marque' }, needs: ['brands/create'] },
  { route: 'brands/delete', url: '/api/brands/1', params: { entityId: '1' }, needs: ['brands/create', 'products/delete'] },
]);
