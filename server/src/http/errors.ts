import { Type } from 'typebox';
import { RpcCode, RpcError, RpcTransportError } from '../bitcoin/rpc-client.ts';

/** A failure of the database itself (unreachable, timed out), which the API answers with a 503 and SERVICE_UNAVAILABLE_MESSAGE. */
export { isDatabaseUnavailable } from '../db/database.ts';

/** Every error the API answers has this shape: the web app shows `message` as it is. */
export const ErrorResponse = Type.Object(
  { status: Type.Literal('error'), message: Type.String() },
  { additionalProperties: true },
);

/** An expected failure with a message fit for the user. Anything else becomes a generic 500. */
export class ApiError extends Error {
  readonly statusCode: number;
  readonly extra: Record<string, unknown> | undefined;
  /**
   * What staff see instead of `message` (the audit trail's error, a retry's
   * record), when the caller is told less: the node's own reason behind a
   * refusal worded so as to keep the private mempool private.
   */
  readonly staffDetail: string | undefined;
  constructor(statusCode: number, message: string, extra?: Record<string, unknown>, staffDetail?: string) {
    super(message);
    this.name = 'ApiError';
    this.statusCode = statusCode;
    this.extra = extra;
    this.staffDetail = staffDetail;
  }
}

export const SERVICE_UNAVAILABLE_MESSAGE = 'The service is temporarily unavailable. Nothing was submitted; please try again shortly.';
export const NODE_UNAVAILABLE_MESSAGE = 'The mining node is not reachable right now. Please try again shortly.';

/** Maps a node failure to what the user may see: the node's own reason, or a plain "unavailable". */
export function nodeFailure(error: unknown): ApiError {
  if (error instanceof RpcTransportError) return new ApiError(503, NODE_UNAVAILABLE_MESSAGE);
  // Still starting after a restart (-28): not a verdict, and over in seconds.
  if (error instanceof RpcError && error.code === RpcCode.IN_WARMUP) return new ApiError(503, NODE_UNAVAILABLE_MESSAGE);
  if (error instanceof RpcError) return new ApiError(422, error.message);
  throw error;
}
