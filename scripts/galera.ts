import { GaleraCluster } from '../test/cluster/galera';

/**
 * The cluster tests' Galera cluster from the command line (see docs/operations.md, "Running the
 * cluster tests"): `node dist/scripts/galera.js start|stop|status|kill <n>|restart <n>|freeze <n>|thaw <n>`.
 */
async function main(): Promise<void> {
  const [command, arg] = process.argv.slice(2);
  const cluster = new GaleraCluster({ baseDir: process.env.GALERA_DIR });
  switch (command) {
    case 'start':
      await cluster.start();
      break;
    case 'stop':
      await cluster.stop();
      break;
    case 'kill':
      await cluster.kill(Number(arg));
      break;
    case 'restart':
      await cluster.restart(Number(arg));
      break;
    case 'freeze':
      cluster.freeze(Number(arg));
      break;
    case 'thaw':
      await cluster.thaw(Number(arg));
      break;
    case 'status':
      for (let node = 0; node < 3; node++) {
        process.stdout.write(`node ${node}: ${JSON.stringify(await cluster.status(node))}\n`);
      }
      break;
    default:
      process.stderr.write(
        'usage: galera.js start|stop|status|kill <node>|restart <node>|freeze <node>|thaw <node>\n',
      );
      process.exit(2);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
