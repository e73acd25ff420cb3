/**
 * The sample requests of categories (lib/samples.ts), in the order they run: the create makes category 1, the parent products/create names; its delete waits for that product to go.
 */
import { defineSamples } from '../samples.js';

export const samples = defineSamples([
  {
    route: 'categories/create',
    url: '/api/categories',
    body: {
      title: 'Sample category',
      locale: 'en_US',
      visible: 1,
    },
  },
  {
    route: 'categories/list',
    url: '/api/categories?parent=0',
  },
  {
    route: 'categories/batch',
    url: '/api/categories/batch',
    body: {
      rows: [
        {
          op: 'create',
          title: 'Batch category',
          locale: 'en_US',
        },
      ],
    },
  },
  {
    route: 'categories/get',
    url: '/api/categories/1',
    params: {
      entityId: '1',
    },
    needs: ['categories/create'],
  },
  {
    route: 'categories/update',
    url: '/api/categories',
    body: {
      id: 1,
      locale: 'fr_FR',
      title: 'Catégorie exemple',
    },
    needs: ['categories/create'],
  },
  {
    route: 'categories/delete',
    url: '/api/categories/1',
    params: {
      entityId: '1',
    },
    needs: ['categories/create', 'products/delete'],
  },
]);
