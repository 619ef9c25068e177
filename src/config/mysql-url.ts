/** One MySQL/MariaDB server of a `DATABASE_URL` host list. */
export interface MysqlEndpoint {
  host: string;
  port: number;
}

/** A parsed `mysql://user:password@host1:port1,host2:port2/database` URL. */
export interface MysqlUrl {
  /** In the order given: the service uses the first that answers (contract §17). */
  endpoints: MysqlEndpoint[];
  user: string;
  password: string;
  database: string;
}

const DEFAULT_PORT = 3306;
const SHAPE = /^mysql:\/\/(?:([^:@/]*)(?::([^@/]*))?@)?([^/?#@]+)\/([^/?#]+)$/;
const HOST = /^(?:\[[0-9a-fA-F:.]+\]|[A-Za-z0-9._-]+)$/;

/**
 * Parses a `DATABASE_URL`, which may list several hosts (a Galera cluster's nodes) — a form
 * WHATWG `URL` refuses. User and password are percent-decoded. Returns null when it is not such
 * a URL (config validation reports it).
 */
export function parseMysqlUrl(text: string): MysqlUrl | null {
  const match = SHAPE.exec(text.trim());
  if (!match) return null;
  const [, user = '', password = '', hostList, database] = match;
  const endpoints: MysqlEndpoint[] = [];
  for (const item of hostList.split(',')) {
    const endpoint = parseEndpoint(item.trim());
    if (!endpoint) return null;
    endpoints.push(endpoint);
  }
  try {
    return {
      endpoints,
      user: decodeURIComponent(user),
      password: decodeURIComponent(password),
      database: decodeURIComponent(database),
    };
  } catch {
    return null; // a malformed %-escape
  }
}

function parseEndpoint(item: string): MysqlEndpoint | null {
  const match = /^(.*?)(?::(\d{1,5}))?$/.exec(item);
  if (!match) return null;
  const [, rawHost, rawPort] = match;
  if (!HOST.test(rawHost)) return null;
  const port = rawPort === undefined ? DEFAULT_PORT : Number(rawPort);
  if (port < 1 || port > 65535) return null;
  return { host: rawHost.replace(/^\[(.*)\]$/, '$1'), port };
}

/** `host:port` for logs (never the credentials). */
export const endpointName = (endpoint: MysqlEndpoint): string =>
  endpoint.host.includes(':') ? `[${endpoint.host}]:${endpoint.port}` : `${endpoint.host}:${endpoint.port}`;
