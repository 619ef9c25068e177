import { request, type IncomingMessage } from 'node:http';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';

/** One answer to a request of the burst: status 0 when the connection failed instead. */
export interface BurstAnswer {
  status: number;
  retryAfter?: string;
  ms: number;
}

interface Burst {
  url: string;
  path: string;
  authorization: string;
  /** The bodies, sent in turn (request i sends bodies[i % bodies.length]). */
  bodies: Uint8Array[];
  count: number;
}

/**
 * Sends `count` JSON POSTs at once, each on a connection of its own, from a worker thread: the
 * callers of a real service are other processes, so the burst's clients must not share the event
 * loop of the app under test (their sockets' work would be counted as the app's). Resolves with
 * every answer once all are in.
 */
export function sendBurst(burst: Burst): Promise<BurstAnswer[]> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(__filename, { workerData: burst });
    worker.once('message', (answers: BurstAnswer[]) => {
      resolve(answers);
      void worker.terminate();
    });
    worker.once('error', reject);
  });
}

function post(burst: Burst, body: Uint8Array): Promise<BurstAnswer> {
  const started = Date.now();
  return new Promise((resolve) => {
    const req = request(`${burst.url}${burst.path}`, {
      method: 'POST',
      agent: false,
      headers: {
        Authorization: burst.authorization,
        'Content-Type': 'application/json',
        'Content-Length': body.length,
      },
    });
    req.on('response', (res: IncomingMessage) => {
      res.resume();
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          retryAfter: res.headers['retry-after'],
          ms: Date.now() - started,
        }),
      );
    });
    req.on('error', () => resolve({ status: 0, ms: Date.now() - started }));
    req.end(body);
  });
}

if (!isMainThread && parentPort) {
  const burst = workerData as Burst;
  const port = parentPort;
  void Promise.all(
    Array.from({ length: burst.count }, (_, i) => post(burst, burst.bodies[i % burst.bodies.length])),
  ).then((answers) => port.postMessage(answers));
}
