/**
 * The sample requests of the reference data's kinds (lib/samples.ts), in the order they run: read-only rows bundled with each function.
 */
import { defineSamples } from '../samples.js';

export const samples = defineSamples([
  {
    route: 'title/list',
    url: '/api/title?lang=fr_FR',
  },
  {
    route: 'title/get',
    url: '/api/title/1',
    params: {
      entityId: '1',
    },
  },
  {
    route: 'countries/list',
    url: '/api/countries?limit=5',
  },
  {
    route: 'countries/get',
    url: '/api/countries/64',
    params: {
      entityId: '64',
    },
  },
  {
    route: 'currencies/list',
    url: '/api/currencies',
  },
  {
    route: 'currencies/get',
    url: '/api/currencies/1',
    params: {
      entityId: '1',
    },
  },
  {
    route: 'languages/list',
    url: '/api/languages',
  },
  {
    route: 'languages/get',
    url: '/api/languages/2',
    params: {
      entityId: '2',
    },
  },
  {
    route: 'taxes/list',
    url: '/api/taxes',
  },
  {
    route: 'taxes/get',
    url: '/api/taxes/1',
    params: {
      entityId: '1',
    },
  },
]);
