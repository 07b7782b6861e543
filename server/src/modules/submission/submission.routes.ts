import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ErrorResponse } from '../../http/errors.ts';
import { addressGroup } from '../../http/sse-registry.ts';
import {
  InfoQuery,
  InfoResponse,
  MAX_TX_HEX_CHARS,
  PackageResult,
  ParseResponse,
  SubmitPackageBody,
  SubmitResponse,
  SubmitTxBody,
  TxHexesBody,
} from './submission.schemas.ts';
import { MAX_PACKAGE_COUNT, type SubmissionService } from './submission.service.ts';
import type { WebhookService } from '../notifications/webhooks.service.ts';
import { submitPackage } from './submit-package.ts';
import { submitTx } from './submit-tx.ts';

export interface SubmissionRoutesOptions {
  service: SubmissionService;
  /** callback_url and clients' webhooks: checked first and subscribed once the node accepted, steps of the pipeline (submission-pipeline.ts). */
  webhooks: WebhookService;
  network: string;
}

/** Room for JSON punctuation and a client code around the hex. */
const SINGLE_BODY_LIMIT = MAX_TX_HEX_CHARS + 16 * 1024;
/** A package's members together must fit a block, so the same hex budget plus per-item overhead. */
const PACKAGE_BODY_LIMIT = MAX_TX_HEX_CHARS + 64 * 1024;

const errors = { 400: ErrorResponse, 413: ErrorResponse, 422: ErrorResponse, 429: ErrorResponse, 503: ErrorResponse };

/** Public routes: registered in the public scope, whose hook spends the caller's rate-limit budget (app.ts). */
export function submissionRoutes({ service, webhooks, network }: SubmissionRoutesOptions): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get('/getinfo', {
      schema: {
        tags: ['public'],
        summary: 'Chain height, network and the current minimum fee rate, with a quote of the minimum that holds for a while',
        querystring: InfoQuery,
        response: { 200: InfoResponse, 400: ErrorResponse, 503: ErrorResponse },
      },
    }, (request) => service.info(network, request.query.client_code));

    app.post('/parse-tx', {
      bodyLimit: PACKAGE_BODY_LIMIT,
      schema: {
        tags: ['public'],
        summary: 'Decode one transaction or a package and say whether each clears the current minimum fee',
        body: TxHexesBody,
        response: { 200: ParseResponse, ...errors },
      },
    }, (request) => service.parse(request.body.tx_hexes, request.body.client_code, { clientAddress: addressGroup(request.ip), quoteId: request.body.quote_id }));

    app.post('/submit-tx', {
      bodyLimit: SINGLE_BODY_LIMIT,
      schema: {
        tags: ['public'],
        summary: "Submit one transaction to the pool's mempool",
        body: SubmitTxBody,
        response: { 200: SubmitResponse, ...errors },
      },
    }, ({ body, ip }) =>
      submitTx(service.context, body.tx_hex, body.client_code, { clientAddress: addressGroup(ip), quoteId: body.quote_id }, { callbackUrl: body.callback_url, webhooks }));

    app.post('/submit-package', {
      bodyLimit: PACKAGE_BODY_LIMIT,
      schema: {
        tags: ['public'],
        summary: `Submit a package of up to ${MAX_PACKAGE_COUNT} transactions, parents first`,
        body: SubmitPackageBody,
        response: { 200: PackageResult, ...errors },
      },
    }, ({ body, ip }) =>
      submitPackage(service.context, body.tx_hexes, body.client_code, { clientAddress: addressGroup(ip), quoteId: body.quote_id }, { callbackUrl: body.callback_url, webhooks }));
  };
}
