/**
 * The sample requests of products (lib/samples.ts), in the order they run: the create makes product 1 (with rule 3, category 1 and brand 1, made first), which the later samples read, change and delete.
 */
import { defineSamples } from '../samples.js';

export const samples = defineSamples([
  {
    route: 'products/create',
    url: '/api/products',
    body: {
      ref: 'SAMPLE-1',
      default_category: 1,
      brand_id: 1,
      price: '19.99',
      currency: 1,
      tax_rule: 3,
      locale: 'en_US',
      title: 'Sample product',
    },
    needs: ['tax-rules/create', 'categories/create', 'brands/create'],
  },
  {
    route: 'products/list',
    url: '/api/products?visible=*',
  },
  {
    route: 'products/batch',
    url: '/api/products/batch',
    body: {
      rows: [
        {
          op: 'upsert',
          ref: 'SAMPLE-2',
          default_category: 0,
          price: '5',
          currency: 1,
          tax_rule: 1,
          locale: 'en_US',
          title: 'Made or updated by a batch',
        },
      ],
    },
  },
  {
    route: 'products/get',
    url: '/api/products/1',
    params: {
      productId: '1',
    },
    needs: ['products/create'],
  },
  {
    route: 'products/update',
    url: '/api/products/1',
    params: {
      productId: '1',
    },
    body: {
      price: 24.5,
      visible: 1,
    },
    needs: ['products/create'],
  },
  {
    route: 'products/delete',
    url: '/api/products/1',
    params: {
      productId: '1',
    },
    // With the sale elements the pse samples made of it.
    needs: ['products/create', 'pse/delete'],
  },
]);
