// test-legs: sqlite only — container and configuration files: no database (docs/testing.md).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config/app-config';

/** This file runs as dist/test/ops/*.js. */
const REPO = resolve(__dirname, '..', '..', '..');
const read = (path: string) => readFileSync(join(REPO, path), 'utf8');
const COMPOSE_FILES = ['docker/compose.yaml', 'docker/compose.galera.yaml'];
const SECRETS = [
  'ADMIN_PASSWORD',
  'WEBHOOK_SIGNING_KEY',
  'CARD_FINGERPRINT_KEY',
  'SECRETS_KEY',
  'MARIADB_PASSWORD',
  'MARIADB_ROOT_PASSWORD',
];

/** docker/.env.example as name → value (comments and blank lines left out). */
function exampleEnv(): Record<string, string> {
  return Object.fromEntries(
    read('docker/.env.example')
      .split('\n')
      .filter((line) => /^[A-Z_]+=/.test(line))
      .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
  );
}

describe('the compose files and their secrets', () => {
  it('require every secret (no default), and docker/.env.example documents every variable they read', () => {
    const example = exampleEnv();
    for (const file of COMPOSE_FILES) {
      const compose = read(file);
      assert.doesNotMatch(compose, /change-?me-?please|:-[^}]*change-?me/i, `${file}: no default secret`);
      const used = new Set([...compose.matchAll(/\$\{([A-Z_]+)/g)].map((match) => match[1]));
      for (const name of used) assert.ok(name in example, `${file} reads ${name}: not in .env.example`);
      for (const secret of SECRETS) {
        const uses = [...compose.matchAll(new RegExp(`\\$\\{${secret}([^}]*)\\}`, 'g'))];
        assert.ok(uses.length > 0, `${file} uses ${secret}`);
        for (const [, rest] of uses) {
          assert.match(rest, /^:\?set [A-Z_]+ in docker\/\.env/, `${file}: ${secret} is required`);
        }
      }
    }
  });

  it("docker/.env.example's secrets are examples the service refuses in production", () => {
    const example = exampleEnv();
    for (const secret of SECRETS) {
      const shown =
        secret === 'SECRETS_KEY' ? Buffer.from(example[secret], 'base64').toString() : example[secret];
      assert.match(shown, /^change-me-/, `${secret}: an obvious example`);
    }
    const env = {
      ...example,
      NODE_ENV: 'production',
      DATABASE_URL: `mysql://checkout:${example.MARIADB_PASSWORD}@mariadb:3306/checkout`,
    };
    assert.throws(
      () => loadConfig(env),
      (error: unknown) => {
        assert.ok(error instanceof ConfigError);
        assert.deepEqual(error.problems.map((problem) => problem.split('=')[0]).sort(), [
          'ADMIN_PASSWORD',
          'CARD_FINGERPRINT_KEY',
          'DATABASE_URL',
          'SECRETS_KEY',
          'WEBHOOK_SIGNING_KEY',
        ]);
        return true;
      },
    );
    assert.equal(
      loadConfig({ ...env, NODE_ENV: 'development' }).adminUsername,
      'admin',
      'tried out: accepted',
    );
  });

  describe('galera-1 bootstraps only once (docker/galera-bootstrap.sh)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'galera-bootstrap-'));
    after(() => rmSync(dir, { recursive: true, force: true }));
    /** The arguments the script hands to the image's entrypoint (here: echo) for this grastate.dat. */
    const argsFor = (grastate: string | null): string[] => {
      rmSync(join(dir, 'grastate.dat'), { force: true });
      if (grastate !== null) writeFileSync(join(dir, 'grastate.dat'), grastate);
      return execFileSync('sh', [join(REPO, 'docker/galera-bootstrap.sh'), '--wsrep-node-name=galera-1'], {
        env: { PATH: process.env.PATH, GALERA_DATADIR: dir, GALERA_NEXT_ENTRYPOINT: 'echo' },
        stdio: ['ignore', 'pipe', 'ignore'],
      })
        .toString()
        .trim()
        .split(' ');
    };
    const grastate = (safe: 0 | 1) =>
      `# GALERA saved state\nversion: 2.1\nuuid:    6c4e1a2b-0000-11ef-9d2e-2b3c4d5e6f70\nseqno:   42\nsafe_to_bootstrap: ${safe}\n`;

    it('the compose file no longer passes --wsrep-new-cluster itself; the script is the entrypoint', () => {
      const compose = read('docker/compose.galera.yaml');
      assert.doesNotMatch(compose, /^\s*- --wsrep-new-cluster/m);
      assert.match(compose, /entrypoint: \["\/usr\/local\/bin\/galera-bootstrap\.sh"\]/);
      assert.match(compose, /\.\/galera-bootstrap\.sh:\/usr\/local\/bin\/galera-bootstrap\.sh:ro/);
    });

    it('first start (no grastate.dat): a new cluster', () => {
      assert.deepEqual(argsFor(null), ['--wsrep-node-name=galera-1', '--wsrep-new-cluster']);
    });

    it('restarted while the cluster runs on (safe_to_bootstrap: 0): joins it', () => {
      assert.deepEqual(argsFor(grastate(0)), ['--wsrep-node-name=galera-1']);
    });

    it('the last node of a stopped cluster (safe_to_bootstrap: 1): bootstraps it again', () => {
      assert.deepEqual(argsFor(grastate(1)), ['--wsrep-node-name=galera-1', '--wsrep-new-cluster']);
    });
  });
});
