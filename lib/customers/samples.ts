/**
 * The sample requests of customers (lib/samples.ts), in the order they run: the create makes customer 1, which the later samples read, change and delete.
 */
import { defineSamples } from '../samples.js';

export const samples = defineSamples([
  {
    route: 'customers/create',
    url: '/api/customers',
    body: {
      title: 1,
      firstname: 'Jeanne',
      lastname: 'Martin',
      email: 'jeanne@example.com',
      password: 'sample password',
      lang_id: 1,
      country: 64,
      zipcode: '75001',
      city: 'Paris',
      address1: '1 rue de Rivoli',
    },
  },
  {
    route: 'customers/list',
    url: '/api/customers?order=lastname',
  },
  {
    route: 'customers/batch',
    url: '/api/customers/batch',
    body: {
      rows: [
        {
          op: 'upsert',
          title: 1,
          firstname: 'Paul',
          lastname: 'Durand',
          email: 'paul@example.com',
          password: 'sample password',
          lang_id: 1,
          country: 64,
          zipcode: '75002',
          city: 'Paris',
          address1: '2 rue de Rivoli',
        },
      ],
    },
  },
  {
    route: 'customers/get',
    url: '/api/customers/1',
    params: {
      entityId: '1',
    },
    needs: ['customers/create'],
  },
  {
    route: 'customers/update',
    url: '/api/customers',
    body: {
      id: 1,
      city: 'Lyon',
      zipcode: '69001',
    },
    needs: ['customers/create'],
  },
  {
    route: 'customers/check-login',
    url: '/api/customers/checkLogin',
    body: {
      email: 'jeanne@example.com',
      password: 'sample password',
    },
    needs: ['customers/create'],
  },
  {
    route: 'customers/delete',
    url: '/api/customers/1',
    params: {
      entityId: '1',
    },
    needs: ['customers/create'],
  },
]);
