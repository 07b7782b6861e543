import { Type } from 'typebox';
import { MAX_QUOTE_ID_CHARS } from './quote-token.ts';

/** Wire shapes of fee quotes (quote-token.ts): the quote the rate reads answer with, and the field a submission names one in. */

export const QuoteSchema = Type.Object(
  {
    quote_id: Type.String({ description: 'Name it as quote_id in a submission (both APIs, single or package) to be judged at this threshold until expires_at' }),
    threshold: Type.Number({ description: 'The minimum fee rate (sat/vB) the quote holds, with the client code\'s discount applied' }),
    client_code: Type.Optional(Type.String({ description: 'The client code the quote holds for; absent: for a submission without one' })),
    expires_at: Type.String({ description: 'ISO 8601: until then a submission naming the quote is judged at its threshold, even if the minimum has risen (the quote_validity_minutes setting, 10 by default)' }),
  },
  {
    description:
      "A signed fee quote: the minimum a submission naming it is judged by until it expires (or the current minimum, when that is lower), for the same client code. Nothing is stored per quote; it may be named by any number of submissions until it expires. An expired, altered or other client code's quote is refused with the reason",
  },
);

export const QuoteIdField = Type.Optional(
  Type.String({ maxLength: MAX_QUOTE_ID_CHARS, description: 'A quote_id from GET /api/rates or /rest-api/getinfo: judged at its threshold while it holds; refused (with the reason) when it has expired, is for another client code, or was altered' }),
);
