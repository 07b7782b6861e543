import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyError, FastifyRequest } from 'fastify';
import { authenticate } from '../../auth/staff-scope.ts';
import type { TokenVerifier } from '../../auth/token-verifier.ts';
import { decodeTxHex } from '../../bitcoin/tx-codec.ts';
import { ApiError, isDatabaseUnavailable, SERVICE_UNAVAILABLE_MESSAGE } from '../../http/errors.ts';
import { addressGroup } from '../../http/sse-registry.ts';
import { isApiKeyFormat } from '../clients/api-key-format.ts';
import type { StatusService } from '../status/status.service.ts';
import { MAX_TX_HEX_CHARS } from '../submission/submission.schemas.ts';
import type { SubmissionService } from '../submission/submission.service.ts';
import { checkTx } from '../submission/dry-run.ts';
import { submitPackage } from '../submission/submit-package.ts';
import { submitTx } from '../submission/submit-tx.ts';
import type { WebhookService } from '../notifications/webhooks.service.ts';
import { chainName, explorerStatusOf, explorerTxOf, packageMembers, ratesOf, txStatusOf } from './slipstream-api.mapping.ts';
import {
  BlockInfoResponse,
  ExplorerStatus,
  ExplorerTx,
  ExplorerTxHex,
  ExplorerTxParams,
  IsSuccessError,
  MempoolTestsBody,
  MempoolTestsResponse,
  PackageBody,
  PackageResponse,
  RatesQuery,
  RatesResponse,
  StatusError,
  SystemResponse,
  TransactionBody,
  TransactionResponse,
  TxStatusQuery,
  TxStatusResponse,
} from './slipstream-api.schemas.ts';
import type { SlipstreamApiService } from './slipstream-api.service.ts';

/**
 * The Slipstream-compatible public API (`/api/*`), beside `/rest-api/*`:
 * the same services (submission, status, pricing, settings, discounts),
 * answered in the public service's field names (slipstream-api.mapping.ts), so
 * that clients written against it need only a new base URL. Registered in
 * the public scope, whose hook spends the caller's per-address budget
 * shared with the public /rest-api routes (app.ts).
 *
 * Also the block-explorer reads (`/api/tx/:txid`, `/api/tx/:txid/status`,
 * `/api/tx/:txid/hex`, Esplora's shapes) for the portal's own transactions, so tools written to
 * poll an explorer can poll the pool.
 */

export const MISSING_AUTHORIZATION_MESSAGE = 'Missing or invalid Authorization header';
export const SLIPSTREAM_API_TAG = 'slipstream-api';
/**
 * The explorer reads' 404: they serve the portal's own transactions only,
 * from its records, so a transaction mined elsewhere is not found here even
 * when /api/transactions/status finds it in a recent block.
 */
export const EXPLORER_TX_NOT_FOUND_MESSAGE = 'Transaction not found: the explorer reads show only transactions submitted here.';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** How the public API's route answers an error: `{is_success: false, message}` (reads) or `{status: "error", message}` (submissions, the default). */
    errorShape?: 'is_success' | 'status';
  }
}

export interface SlipstreamApiOptions {
  submission: SubmissionService;
  status: StatusService;
  slipstreamApi: SlipstreamApiService;
  network: string;
  version: string;
  /** Staff tokens are good for the dry run too; without, only clients' API keys. */
  verifier?: TokenVerifier | undefined;
  /** callback_url and clients' webhooks, as on /rest-api. */
  webhooks: WebhookService;
}

const SINGLE_BODY_LIMIT = MAX_TX_HEX_CHARS + 16 * 1024;
const PACKAGE_BODY_LIMIT = MAX_TX_HEX_CHARS + 64 * 1024;

const tags = [SLIPSTREAM_API_TAG];
const readErrors = { 400: IsSuccessError, 404: IsSuccessError, 429: IsSuccessError, 503: IsSuccessError };
const submitErrors = { 400: StatusError, 413: StatusError, 429: StatusError, 503: StatusError };

export function slipstreamApiRoutes(options: SlipstreamApiOptions): FastifyPluginAsyncTypebox {
  return async (app) => {
    const { submission, status, slipstreamApi, network, version, verifier, webhooks } = options;
    const reads = { errorShape: 'is_success' as const };

    // Errors in the shapes the public service answers; a refusal (422 on /rest-api) is its 400.
    // Anything unexpected goes on to the app's own handler (logged, 500).
    app.setErrorHandler((error: FastifyError, request, reply) => {
      const answer = knownError(error, request);
      if (answer === undefined) throw error;
      const statusCode = answer.statusCode === 422 ? 400 : answer.statusCode;
      const body =
        request.routeOptions.config.errorShape === 'is_success'
          ? { is_success: false, message: answer.message }
          : { status: 'error', message: answer.message, ...answer.extra, ...(answer.extra?.result ? { transactions: packageMembers(answer.extra.result as never) } : {}) };
      return reply.status(statusCode).send(body);
    });

    app.get('/rates', {
      config: reads,
      schema: { tags, summary: 'The fee rates a submission is judged by now, with a client code\'s discount', querystring: RatesQuery, response: { 200: RatesResponse, ...readErrors } },
    }, async (request) => ratesOf(await submission.quote(request.query.client_code)));

    app.get('/system', {
      config: reads,
      schema: { tags, summary: 'Version, chain, height and the minimum fee rates', response: { 200: SystemResponse, ...readErrors } },
    }, async () => {
      const quote = await submission.quote(undefined);
      return {
        version,
        chain_name: chainName(network),
        block_height: quote.snapshot.height - 1,
        slipstream_fee_rate_floor: quote.threshold,
        fee_rate_floor: quote.settings.feeRateFloor,
      };
    });

    app.get('/block-info', {
      config: reads,
      schema: { tags, summary: 'The best block (height, hash, time) and the fee rates', response: { 200: BlockInfoResponse, ...readErrors } },
    }, async () => {
      const [quote, best] = await Promise.all([submission.quote(undefined), slipstreamApi.bestBlock()]);
      return {
        block_height: best.height,
        block_hash: best.hash,
        block_time: best.time,
        fee_rate: quote.snapshot.marketRate,
        submit_fee_rate: quote.settings.feeRateFloor,
        effective_rate: quote.threshold,
      };
    });

    app.post('/transactions', {
      bodyLimit: SINGLE_BODY_LIMIT,
      schema: {
        tags,
        summary: "Submit one transaction to the pool's mempool (or, with skip_mempool_submission, only judge it)",
        description:
          '200 `{status: "success", message: <txid>}`; 400 `{status: "error", message}` for a refusal (bad hex, missing inputs, a fee below effective_rate, the node\'s reason); 503 when the node or the database cannot be reached. With skip_mempool_submission, a success also carries `standard`: whether the public network (a node with Bitcoin Core\'s default policy) would relay it, and why not.',
        body: TransactionBody,
        response: { 200: TransactionResponse, ...submitErrors },
      },
    }, (request) => {
      const { tx_hex, client_code, skip_mempool_submission, callback_url, quote_id } = request.body;
      // The same pipeline as /rest-api/submit-tx (submission/submission-pipeline.ts).
      if (skip_mempool_submission !== true) return submitTx(submission.context, tx_hex, client_code, { clientAddress: addressGroup(request.ip), quoteId: quote_id }, { callbackUrl: callback_url, webhooks });
      if (callback_url !== undefined) throw new ApiError(400, 'callback_url cannot be used with skip_mempool_submission: nothing is submitted, so there is nothing to report.');
      return checkTx(submission.context, tx_hex, client_code, quote_id);
    });

    app.post('/transactions/packages', {
      bodyLimit: PACKAGE_BODY_LIMIT,
      schema: {
        tags,
        summary: 'Submit 2-25 transactions as a package (submitpackage), parents first',
        description: "Each member must clear effective_rate on its own, or together with the members that spend it (child pays for parent: (its fee + theirs) / (its vsize + theirs)). 200 when the node took the package; 400 with the node's per-member outcome when it refused all or part of it (members it took are in the mempool and recorded).",
        body: PackageBody,
        response: { 200: PackageResponse, 400: PackageResponse, 413: StatusError, 429: StatusError, 503: StatusError },
      },
    }, async (request) => {
      const { tx_hexes, client_code, callback_url, quote_id } = request.body;
      const answer = await submitPackage(submission.context, tx_hexes, client_code, { clientAddress: addressGroup(request.ip), quoteId: quote_id }, { callbackUrl: callback_url, webhooks });
      return { ...answer, package_msg: answer.result.package_msg, transactions: packageMembers(answer.result) };
    });

    app.get('/transactions/status', {
      config: reads,
      schema: { tags, summary: 'Where a transaction is: in the mempool (its projected block, the rate to beat, the odds), mined, or gone', querystring: TxStatusQuery, response: { 200: TxStatusResponse, ...readErrors } },
    }, async (request) => txStatusOf(await status.check(request.query.tx_id)));

    app.post('/mempool/tests', {
      config: reads,
      bodyLimit: PACKAGE_BODY_LIMIT,
      schema: {
        tags,
        summary: "The node's testmempoolaccept for each transaction, nothing submitted or recorded",
        description:
          'Needs `Authorization: Bearer <key>`: an API key staff issued to the client from the Clients screen, or a staff token. Without one: 401 `{is_success: false, message: "Missing or invalid Authorization header"}`. Each result also says whether the public network would relay it (`standard`; "unknown" when no policy node could judge).',
        security: [{ bearer: [] }],
        body: MempoolTestsBody,
        response: { 200: MempoolTestsResponse, 401: IsSuccessError, 413: IsSuccessError, ...readErrors },
      },
      // Before the body is read: a stranger's upload costs nothing.
      onRequest: async (request) => {
        request.dryRunTrusted = await authorise(request);
      },
    }, async (request) => ({ is_success: true as const, results: await submission.testMempoolAccept(request.body.tx_hexes, request.dryRunTrusted === true) }));

    app.get('/tx/:txid', {
      config: reads,
      schema: { tags, summary: "A transaction submitted here, as block explorers (Esplora) answer GET /api/tx/{txid}", params: ExplorerTxParams, response: { 200: ExplorerTx, ...readErrors } },
    }, async (request) => {
      const txid = request.params.txid.toLowerCase();
      const hex = await slipstreamApi.portalTxHex(txid);
      if (hex === undefined) throw new ApiError(404, EXPLORER_TX_NOT_FOUND_MESSAGE);
      const [tx, answer] = [decodeTxHex(hex), await status.check(txid)];
      const { status: where } = answer.transaction;
      return explorerTxOf(tx, answer, await slipstreamApi.explorerDetails(tx, hex, where.confirmed ? where.block_hash : null));
    });

    app.get('/tx/:txid/status', {
      config: reads,
      schema: { tags, summary: "A transaction submitted here: confirmed, and its block, as block explorers (Esplora) answer GET /api/tx/{txid}/status", params: ExplorerTxParams, response: { 200: ExplorerStatus, ...readErrors } },
    }, async (request) => {
      const txid = request.params.txid.toLowerCase();
      if ((await slipstreamApi.portalTxHex(txid)) === undefined) throw new ApiError(404, EXPLORER_TX_NOT_FOUND_MESSAGE);
      return explorerStatusOf(await status.check(txid));
    });

    app.get('/tx/:txid/hex', {
      config: reads,
      schema: {
        tags,
        summary: 'A transaction submitted here, its raw hex as text, as block explorers (Esplora) answer GET /api/tx/{txid}/hex',
        params: ExplorerTxParams,
        response: { 200: { content: { 'text/plain': { schema: ExplorerTxHex } } }, ...readErrors },
      },
    }, async (request, reply) => {
      const hex = await slipstreamApi.portalTxHex(request.params.txid.toLowerCase());
      if (hex === undefined) throw new ApiError(404, EXPLORER_TX_NOT_FOUND_MESSAGE);
      return reply.type('text/plain; charset=utf-8').send(hex.toLowerCase());
    });

    /** Whether the caller may run the dry run, and as staff (the node's own reasons) or a client's key (filtered ones). */
    async function authorise(request: FastifyRequest): Promise<boolean> {
      const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '');
      const token = match?.[1];
      if (!token) throw new ApiError(401, MISSING_AUTHORIZATION_MESSAGE);
      if (isApiKeyFormat(token)) {
        if ((await slipstreamApi.clientOfApiKey(token)) === undefined) throw new ApiError(401, MISSING_AUTHORIZATION_MESSAGE);
        return false;
      }
      if (!verifier) throw new ApiError(401, MISSING_AUTHORIZATION_MESSAGE);
      try {
        await authenticate(request, verifier);
      } catch (error) {
        if (error instanceof ApiError && error.statusCode === 401) throw new ApiError(401, MISSING_AUTHORIZATION_MESSAGE);
        throw error;
      }
      return true;
    }
  };
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The dry run's caller is staff (true) or a client's API key (false). */
    dryRunTrusted?: boolean;
  }
}

/** The status and message of an error the public API answers itself; undefined for the unexpected. */
function knownError(error: FastifyError, request: FastifyRequest): { statusCode: number; message: string; extra?: Record<string, unknown> | undefined } | undefined {
  if (error instanceof ApiError) {
    if (error.staffDetail !== undefined) request.auditErrorDetail = error.staffDetail;
    return { statusCode: error.statusCode, message: error.message, extra: error.extra };
  }
  if (error.validation) return { statusCode: 400, message: error.message };
  if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return { statusCode: 413, message: 'The request body is too large.' };
  if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) return { statusCode: error.statusCode, message: error.message };
  if (isDatabaseUnavailable(error)) {
    request.log.error({ err: error }, 'Database unavailable');
    return { statusCode: 503, message: SERVICE_UNAVAILABLE_MESSAGE };
  }
  return undefined;
}
