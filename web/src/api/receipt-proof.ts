import { api, unwrap } from './http.ts';
import type { paths } from './schema';

type Proof = paths['/api/receipts/proof']['post'];
export type ReceiptProof = Proof['responses'][200]['content']['application/json'];

/** The block and merkle proof of a receipt's transaction, once mined: the receipt is the only key to it. */
export const fetchReceiptProof = (receipt: string) => unwrap(api.POST('/api/receipts/proof', { body: { receipt } }));
