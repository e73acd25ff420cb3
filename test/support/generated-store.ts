/** A generated Thelia store, as large as asked. */
import { phpBcrypt } from './thelia-store.js';
import type { TheliaRow } from './thelia-tables.js';

/**
 * A Thelia store of `count` customers and as many products, ids `first` on (each customer with its
 * default address, each product with its texts in two locales, default sale element, price and
 * category), and its one tax rule and currency when `first` is 1: for the import's bench and its
 * tests at volume.
 */
export function generatedStore(count: number, first = 1): Record<string, TheliaRow[]> {
  const range = (n: number) => Array.from({ length: n }, (_, i) => first + i);
  const hash = phpBcrypt('bench password');
  const created = '2020-01-01 00:00:00';
  return {
    ...(first === 1
      ? {
          currency: [{ id: 1, code: 'EUR', symbol: '€', rate: 1, by_default: 1 }],
          tax_rule: [{ id: 1, is_default: 1, created_at: created, updated_at: null }],
          tax_rule_i18n: [{ id: 1, locale: 'en_US', title: 'VAT', description: null }],
          tax_rule_country: [{ id: 1, tax_rule_id: 1, country_id: 64, state_id: null, tax_id: 1, position: 1 }],
          // The 20 categories its products are in.
          category: Array.from({ length: 20 }, (_, i) => ({ id: i + 1, parent: 0, visible: 1, position: i + 1, created_at: created, updated_at: created })),
          category_i18n: Array.from({ length: 20 }, (_, i) => ({ id: i + 1, locale: 'en_US', title: `Category ${i + 1}`, chapo: null, description: null, postscriptum: null })),
        }
      : {}),
    product: range(count).map((id) => ({ id, ref: `REF-${id}`, tax_rule_id: 1, visible: id % 2, brand_id: id % 7 || null, created_at: created, updated_at: created })),
    product_i18n: range(count).flatMap((id) => [
      { id, locale: 'en_US', title: `Product ${id}`, chapo: 'A short text', description: 'A longer description of the product, as shops write them.', postscriptum: null },
      { id, locale: 'fr_FR', title: `Produit ${id}`, chapo: 'Un texte court', description: 'Une description plus longue du produit.', postscriptum: null },
    ]),
    product_sale_elements: range(count).map((id) => ({ id, product_id: id, ref: `PSE-${id}`, quantity: 10, weight: (id % 50) / 10, is_default: 1, created_at: created, updated_at: created })),
    product_price: range(count).map((id) => ({ product_sale_elements_id: id, currency_id: 1, price: `${id % 500}.99`, promo_price: '0', from_default_currency: 1 })),
    product_category: range(count).map((id) => ({ product_id: id, category_id: (id % 20) + 1, default_category: 1, position: 1 })),
    customer: range(count).map((id) => ({
      id,
      title_id: (id % 3) + 1,
      lang_id: id % 2 ? 1 : null,
      firstname: `First${id}`,
      lastname: `Last${id}`,
      email: `customer${id}@example.com`,
      password: hash,
      algo: 'PASSWORD_BCRYPT',
      created_at: created,
      updated_at: created,
    })),
    address: range(count).map((id) => ({
      id,
      customer_id: id,
      title_id: 1,
      firstname: `First${id}`,
      lastname: `Last${id}`,
      address1: `${id} rue de la Paix`,
      address2: '',
      address3: '',
      zipcode: '75002',
      city: 'Paris',
      country_id: 64,
      is_default: 1,
    })),
  };
}
