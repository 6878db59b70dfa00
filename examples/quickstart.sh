#!/usr/bin/env bash
# Runs the quickstart on embedded defaults: tables in ./quickstart-data (the streaming part runs
# Flink on an embedded MiniCluster), then shows the users table with the CLI.
# Build first: mvn -B -ntp -DskipTests package
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
jar="$here/examples/target/lance-flink-examples.jar"
if [ ! -f "$jar" ]; then
  echo "examples/target/lance-flink-examples.jar not found; build first: mvn -B -ntp -DskipTests package" >&2
  exit 2
fi
table="${1:-quickstart-data/users.lance}"
java --add-opens=java.base/java.nio=ALL-UNNAMED -jar "$jar" "$table"
echo "== bin/lance-flink versions $table"
"$here/bin/lance-flink" versions "$table"
echo
echo "== bin/lance-flink inspect $table   (fragment 0 carries the overlay of the update)"
"$here/bin/lance-flink" inspect "$table"
echo
echo "== bin/lance-flink dump $table --columns id,name,age --order-by id"
"$here/bin/lance-flink" dump "$table" --columns id,name,age --order-by id
echo
echo "== bin/lance-flink sql -f examples/quickstart.sql   (catalog, INSERT, UPDATE as an overlay, DELETE, SELECT)"
"$here/bin/lance-flink" sql -f "$here/examples/quickstart.sql"
echo
echo "== bin/lance-flink inspect quickstart-data/warehouse/default/users.lance   (the UPDATE: one overlay file per fragment it touched)"
"$here/bin/lance-flink" inspect quickstart-data/warehouse/default/users.lance
echo
