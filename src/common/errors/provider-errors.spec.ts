import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ConsoleLogger, Logger, type ArgumentsHost } from '@nestjs/common';
import { BodyRefused, bodyParserError } from './body-errors';
import { ErrorFilter } from './error.filter';
import { FailedResultFilter } from './failed-result.filter';
import { ProviderCallError, providerCallError } from './provider-errors';
import { UnavailableErrors } from './unavailable-errors';

/** The seam's ProviderCallFailed (payments/adapters/gateway-adapter.ts), as its shape: common/ cannot import it. */
class ProviderCallFailed extends Error {
  constructor(
    readonly provider: string,
    message: string,
    readonly details: { status?: number | null; code?: string | null; retryable: boolean },
  ) {
    super(message);
    this.name = 'ProviderCallFailed';
  }
}

/** An SDK's API error carrying the provider's HTTP status, as MPGS's client throws one (MpgsApiError). */
class ProviderSdkError extends Error {
  constructor(readonly status: number) {
    super(`MPGS RETRIEVE_ORDER failed: HTTP ${status} INVALID_REQUEST`);
    this.name = 'MpgsApiError';
  }
}

const noDatabaseTrouble: UnavailableErrors = { matches: () => false };

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

/** Runs a filter on `error` as Nest would, and returns what it answered. */
function answerOf(filter: ErrorFilter, error: unknown, body: unknown = {}): Answer {
  const answer: Answer = { status: 0, headers: {}, body: undefined };
  const res = {
    headersSent: false,
    setHeader: (name: string, value: string) => (answer.headers[name] = value),
    status(code: number) {
      answer.status = code;
      return this;
    },
    json(value: unknown) {
      answer.body = value;
      return this;
    },
  };
  const req = { id: 'r-1', body };
  const host = {
    switchToHttp: () => ({ getResponse: () => res, getRequest: () => req }),
  } as unknown as ArgumentsHost;
  filter.catch(error, host);
  return answer;
}

// The filters' log lines are not what these tests look at.
before(() => {
  Logger.overrideLogger(false);
});
after(() => {
  Logger.overrideLogger(new ConsoleLogger());
});

describe('bodyParserError: only the body readers’ own errors', () => {
  it('keeps body-parser and multer refusals', () => {
    const parse = Object.assign(new Error('Unexpected token'), { type: 'entity.parse.failed', status: 400 });
    assert.deepEqual(bodyParserError(parse)?.body(), { detail: 'JSON parse error - Unexpected token' });
    const aborted = Object.assign(new Error('request aborted'), { type: 'request.aborted', status: 400 });
    assert.equal(bodyParserError(aborted)?.status, 400);
    const tooLarge = Object.assign(new Error('File too large'), {
      name: 'MulterError',
      code: 'LIMIT_FILE_SIZE',
    });
    assert.equal(bodyParserError(tooLarge)?.status, 413);
  });

  it("never turns another error's 4xx status into ours (a provider's 401 is not our 401)", () => {
    for (const status of [401, 403, 409, 429]) {
      assert.equal(bodyParserError(new ProviderSdkError(status)), null, `status ${status}`);
      assert.equal(bodyParserError({ status, message: 'x' }), null);
    }
  });

  it('the error filter answers such an error as a failure of ours, never with its status', () => {
    const answer = answerOf(new ErrorFilter(noDatabaseTrouble), new ProviderSdkError(401));
    assert.equal(answer.status, 500);
    assert.deepEqual(answer.body, { detail: 'Internal server error.' });
    assert.equal(answer.headers['WWW-Authenticate'], undefined);
  });
});

describe('ProviderCallFailed → 503 or 502 with provider_error (contract §20.1)', () => {
  const retryable = new ProviderCallFailed('stripe', 'Too many requests', {
    status: 429,
    code: 'rate_limit',
    retryable: true,
  });
  const refused = new ProviderCallFailed('mpgs', 'Invalid credentials', {
    status: 401,
    code: 'INVALID_REQUEST',
    retryable: false,
  });
  const silent = new ProviderCallFailed('knet', 'No answer in 8000 ms', { retryable: true });

  it('is recognised by its shape, not its class', () => {
    const error = providerCallError(refused);
    assert.ok(error instanceof ProviderCallError);
    assert.equal(error.status, 502);
    assert.equal(providerCallError(new Error('ProviderCallFailed')), null);
    const named = Object.assign(new Error('x'), {
      name: 'ProviderCallFailed',
      provider: 'stripe',
      details: {},
    });
    assert.equal(providerCallError(named), null, 'without details.retryable it is not one');
    assert.equal(providerCallError(new ProviderSdkError(401)), null);
  });

  it('a provider that did not answer or is busy → 503 with Retry-After; a refusal → 502', () => {
    const filter = new ErrorFilter(noDatabaseTrouble);
    const busy = answerOf(filter, retryable);
    assert.equal(busy.status, 503);
    assert.equal(busy.headers['Retry-After'], '5');
    assert.deepEqual(busy.body, {
      detail: 'The payment provider (stripe) did not answer or is busy; retry later.',
      provider_error: { provider: 'stripe', status: 429, code: 'rate_limit', message: 'Too many requests' },
    });
    const no = answerOf(filter, refused);
    assert.equal(no.status, 502);
    assert.equal(no.headers['Retry-After'], undefined);
    assert.deepEqual(no.body, {
      detail: 'The payment provider (mpgs) refused the request.',
      provider_error: {
        provider: 'mpgs',
        status: 401,
        code: 'INVALID_REQUEST',
        message: 'Invalid credentials',
      },
    });
    assert.deepEqual((answerOf(filter, silent).body as { provider_error: unknown }).provider_error, {
      provider: 'knet',
      status: null,
      code: null,
      message: 'No answer in 8000 ms',
    });
  });

  it('routes whose errors say "result" (inquiry): pending while the provider has not answered, failed when it refused', () => {
    const filter = new FailedResultFilter(noDatabaseTrouble);
    const busy = answerOf(filter, retryable);
    assert.equal(busy.status, 503);
    assert.equal((busy.body as { result: string }).result, 'pending');
    assert.ok((busy.body as { provider_error?: unknown }).provider_error);
    const no = answerOf(filter, refused);
    assert.equal(no.status, 502);
    assert.equal((no.body as { result: string }).result, 'failed');
    assert.equal((no.body as { provider_error: { status: number } }).provider_error.status, 401);
    // The route's other errors are unchanged.
    assert.deepEqual(answerOf(filter, new BodyRefused(400, 'JSON parse error - x')).body, {
      detail: 'JSON parse error - x',
    });
  });

  it('a long provider message is cut', () => {
    const long = new ProviderCallFailed('stripe', 'x'.repeat(5000), { status: 400, retryable: false });
    assert.equal(providerCallError(long)!.providerError.message.length, 500);
  });
});
