/**
 * The sample requests of tax rules (lib/samples.ts), in the order they run: the create makes rule 3 (a fresh table has the two Thelia seeds); its delete waits for the product that uses it to go.
 */
import { defineSamples } from '../samples.js';

export const samples = defineSamples([
  {
    route: 'tax-rules/list',
    url: '/api/tax-rules?limit=5',
  },
  {
    route: 'tax-rules/get',
    url: '/api/tax-rules/1',
    params: {
      entityId: '1',
    },
  },
  {
    route: 'tax-rules/create',
    url: '/api/tax-rules',
    body: {
      country: [64],
      tax: [2, 1],
      i18n: [
        {
          locale: 'en_US',
          title: 'Sample rule',
        },
      ],
    },
  },
  {
    route: 'tax-rules/update',
    url: '/api/tax-rules',
    body: {
      id: 3,
      i18n: [
        {
          locale: 'fr_FR',
          title: 'Règle exemple',
        },
      ],
    },
    needs: ['tax-rules/create'],
  },
  {
    route: 'tax-rules/delete',
    url: '/api/tax-rules/3',
    params: {
      entityId: '3',
    },
    needs: ['tax-rules/create', 'products/delete'],
  },
]);
