/** The brand a product names: what `GET /api/brands?product=N` lists (docs/api.md). A module of its own: the brands' list route needs only this of products. */
import { products } from './entity.js';

/** The brand of product `id`; 0 when it names none, or there is no such product. */
export const brandOfProduct = async (id: number): Promise<number> => (await products.read(id))?.brandId ?? 0;
