/**
 * The sample requests of sale elements (lib/samples.ts), in the order they run: product 1's default
 * sale element is 1 (made with it); the create adds a variant of it, the update puts five back in the
 * default's stock (a take: lib/products/stock-takes.ts), and the delete takes the default, which moves
 * to the variant; the product's delete waits.
 */
import { defineSamples } from '../samples.js';

export const samples = defineSamples([
  {
    route: 'pse/create',
    url: '/api/pse',
    body: { pse: [{ product_id: 1, reference: 'SAMPLE-1-L', currency_id: 1, price: '21.5', quantity: 10, ean_code: '4006381333931' }] },
    needs: ['products/create'],
  },
  { route: 'pse/list', url: '/api/pse?product=1' },
  // An ERP's stock sync: the variant found by its reference, its stock set.
  { route: 'pse/batch', url: '/api/pse/batch', body: { rows: [{ op: 'upsert', reference: 'SAMPLE-1-L', quantity: 12 }] }, needs: ['pse/create'] },
  { route: 'pse/product', url: '/api/pse/product/1', params: { productId: '1' }, needs: ['products/create'] },
  { route: 'pse/get', url: '/api/pse/1?currency=2', params: { pseId: '1' }, needs: ['products/create'] },
  { route: 'pse/update', url: '/api/pse/1', params: { pseId: '1' }, body: { pse: [{ quantity_delta: 5 }] }, needs: ['products/create'] },
  { route: 'pse/delete', url: '/api/pse/1', params: { pseId: '1' }, needs: ['pse/create', 'pse/get', 'pse/update', 'products/update'] },
]);
