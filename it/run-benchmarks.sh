#!/usr/bin/env bash
# Runs the side-by-side benchmarks (ours vs the official Lance SDK) outside the test suite.
# Usage: it/run-benchmarks.sh [rows]            format benchmark, issue #2 (default 1000000 rows)
#        it/run-benchmarks.sh overlay [rows]    overlay update/scan benchmark, issue #3 (default 1000000)
#        it/run-benchmarks.sh sink [appendRows [upserts [keys]]]
#                                               Flink sink vs SDK writes, issue #5 (default 1000000 200000 10000)
#        it/run-benchmarks.sh compaction [rows [fragments [commits]]]
#                                               scans with many overlays, merge and fold, issue #7 (default 1000000 8 50)
#        it/run-benchmarks.sh overlay-merge [rows [fragments [commits [cells]]]]
#                                               overlay-merge and fold of one fragment with 50/100/300 small random
#                                               overlays, ms per fragment, issue #15 (default 100000 8 300 30)
#        it/run-benchmarks.sh scan [rows [fragments [commits]]]
#                                               full and narrow scans, ours vs pylance 14 (own process), with and
#                                               without overlays, issue #17 (default 1000000 8 50)
#        it/run-benchmarks.sh peers [--quick] [--runs N] [--sizes a,ad,u,ud,n,c] [--systems ids] [--jfr] [--keep]
#                                               ours vs Apache Paimon and Apache Iceberg, each in its own JVM,
#                                               issue #17 (3 rounds of full sizes; --quick: one round, 1/10 sizes);
#                                               report in it/target/peers-report.md
#        it/run-benchmarks.sh bytes [rows [tables]] bytes on disk, ours vs pylance at 2.1 and 2.2, per column, and our
#                                               write CPU time, issue #17 (default 200000 rows per table)
#        it/run-benchmarks.sh keymap [rows,rows,... [heap,in-memory,rocksdb [changes [checkpoints]]]]
#                                               upsert checkpoints vs table size, heap vs RocksDB incremental,
#                                               issue #17 (default 100000,10000000 heap,rocksdb 10000 6;
#                                               backends heap, in-memory, migrate, changelog, rocksdb, rocksdb-small-l1)
#        it/run-benchmarks.sh key-resolver [rows [changes [perCheckpoint [rounds]]]]
#                                               the upsert key resolver alone: CPU ns and bytes per record, per
#                                               barrier and per snapshot, issue #17 (default 200000 200000 50000 3)
#        it/run-benchmarks.sh update-column [rows [dims [runs]]]
#                                               UPDATE of one INT column beside a float vector: bytes shuffled
#                                               and writer CPU per million rows, issue #16 (default 200000 768 3)
#        it/run-benchmarks.sh maintenance [minutes [sampleSeconds [variants]]]
#                                               streaming upsert+append job without and with in-job maintenance:
#                                               scans, manifest size and throughput over time, issue #15
#                                               (default 30 30 off,merge,on)
#
# Set LF_BENCH_OFFLINE=1 to build with Maven offline (-o), from what the local repository already holds.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
offline=()
if [[ "${LF_BENCH_OFFLINE:-}" == "1" ]]; then
  offline=(-o)
fi
main=dev.lanceflink.it.bench.FormatBenchmark
if [[ "${1:-}" == "overlay" ]]; then
  main=dev.lanceflink.it.bench.OverlayBenchmark
  shift
elif [[ "${1:-}" == "sink" ]]; then
  main=dev.lanceflink.it.bench.SinkBenchmark
  shift
elif [[ "${1:-}" == "peers" ]]; then
  # The peers are standalone Maven projects (own Flink, dependencies from Maven Central), built here
  # and started by PeerBenchmark in JVMs of their own; nothing of them is on the connector's class path.
  # Only the peers that --systems selects (default: all) are built: a peer's dependencies may be
  # missing from an offline local repository without stopping a run that leaves it out.
  systems="lance,paimon-wo,paimon,iceberg"
  args=("$@")
  for ((i = 1; i + 1 < ${#args[@]}; i++)); do
    if [[ "${args[i]}" == "--systems" ]]; then
      systems="${args[i + 1]}"
    fi
  done
  peers=()
  [[ ",$systems," == *,paimon* ]] && peers+=(paimon)
  [[ ",$systems," == *,iceberg,* ]] && peers+=(iceberg)
  for peer in ${peers[@]+"${peers[@]}"}; do
    mvn -B -q -ntp ${offline[@]+"${offline[@]}"} -f "it/peers/$peer/pom.xml" compile dependency:build-classpath \
      -Dmdep.outputFile=target/peer.classpath >&2
  done
  main=dev.lanceflink.it.bench.PeerBenchmark
  shift
elif [[ "${1:-}" == "keymap" ]]; then
  main=dev.lanceflink.it.bench.KeyMapCheckpointBenchmark
  shift
elif [[ "${1:-}" == "scan" ]]; then
  # pylance scans in its own process, from the venv the it module's tests use.
  bash it/pylance/setup-venv.sh it/target/pylance-venv >&2
  main=dev.lanceflink.it.bench.ScanBenchmark
  shift
elif [[ "${1:-}" == "key-resolver" ]]; then
  main=dev.lanceflink.it.bench.KeyResolverProfile
  shift
elif [[ "${1:-}" == "update-column" ]]; then
  main=dev.lanceflink.it.bench.UpdateColumnBenchmark
  shift
elif [[ "${1:-}" == "maintenance" ]]; then
  main=dev.lanceflink.it.bench.MaintenanceBenchmark
  shift
elif [[ "${1:-}" == "bytes" ]]; then
  # pylance writes its copy in its own process, from the venv the it module's tests use.
  bash it/pylance/setup-venv.sh it/target/pylance-venv >&2
  main=dev.lanceflink.it.bench.BytesBenchmark
  shift
elif [[ "${1:-}" == "overlay-merge" ]]; then
  main=dev.lanceflink.it.bench.OverlayMergeBenchmark
  shift
elif [[ "${1:-}" == "compaction" ]]; then
  main=dev.lanceflink.it.bench.CompactionBenchmark
  shift
fi
mvn -B -q -ntp ${offline[@]+"${offline[@]}"} -pl it -am -DskipTests test-compile dependency:build-classpath \
  -Dmdep.outputFile=target/bench.classpath -Dmdep.includeScope=test >&2
cp="it/target/test-classes:it/target/classes:$(cat it/target/bench.classpath)"
exec java --add-opens=java.base/java.nio=ALL-UNNAMED -Xmx8g -XX:MaxDirectMemorySize=8g \
  -Dlf.oracle.buildDir=it/lance-oracle/target -Dlf.pylanceVenv=it/target/pylance-venv \
  -Dlf.bytesScript=it/pylance/pylance_bytes.py -cp "$cp" "$main" "$@"
