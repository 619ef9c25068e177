#!/bin/sh
# galera-1's entrypoint in docker/compose.galera.yaml: starts a new cluster (--wsrep-new-cluster)
# only when that is safe, then hands over to the mariadb image's own entrypoint with the same
# arguments. With a restart policy, a node that always bootstrapped would, after a crash or a
# restart while galera-2 and galera-3 run on, found a second cluster of its own (split brain).
#
#   - no grastate.dat in the data directory: the very first start (an empty volume) → bootstrap;
#   - grastate.dat says `safe_to_bootstrap: 1`: this node left a stopped cluster last, so it holds
#     every commit → bootstrap again;
#   - otherwise (`safe_to_bootstrap: 0`): the cluster runs on elsewhere, or this node was not the
#     last to leave → join. If the whole cluster is down and galera-1 was not last, see
#     docs/operations.md "In containers" (bootstrap from the node with the highest seqno).
#
# GALERA_DATADIR and GALERA_NEXT_ENTRYPOINT exist for test/ops/compose-files.e2e-spec.ts.
set -eu
grastate="${GALERA_DATADIR:-/var/lib/mysql}/grastate.dat"
next="${GALERA_NEXT_ENTRYPOINT:-docker-entrypoint.sh}"

if [ ! -f "$grastate" ]; then
  echo "galera-bootstrap: no $grastate (first start): bootstrapping a new cluster" >&2
  set -- "$@" --wsrep-new-cluster
elif grep -Eq '^safe_to_bootstrap:[[:space:]]*1[[:space:]]*$' "$grastate"; then
  echo "galera-bootstrap: safe_to_bootstrap: 1 (this node left the cluster last): bootstrapping it" >&2
  set -- "$@" --wsrep-new-cluster
else
  echo "galera-bootstrap: safe_to_bootstrap: 0: joining the cluster" >&2
fi
exec "$next" "$@"
