// The part of autocannon's API the benchmark uses (the package ships no types; @types/autocannon
// would be one more dev dependency for three fields).
declare module 'autocannon' {
  namespace autocannon {
    interface Stats {
      average: number;
      p50: number;
      p99: number;
      total: number;
    }
    interface Request {
      method?: string;
      path?: string;
      headers?: Record<string, string>;
      body?: string;
      setupRequest?: (request: Request) => Request;
    }
    interface Options {
      url: string;
      connections?: number;
      duration?: number;
      method?: string;
      headers?: Record<string, string>;
      body?: string;
      requests?: Request[];
    }
    interface Result {
      '2xx': number;
      requests: Stats;
      latency: Stats;
      non2xx: number;
      errors: number;
      timeouts: number;
    }
  }
  function autocannon(options: autocannon.Options): Promise<autocannon.Result>;
  export = autocannon;
}
