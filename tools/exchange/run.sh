#!/usr/bin/env sh
# Starts the exchange simulator from its assembly jar (build it with `./mill -i exchange.assembly`).
#   tools/exchange/run.sh [--jar JAR] [exchange options...]      (options: run.sh --help)
# The jar is --jar JAR, else $EXCHANGE_JAR, else <repo>/out/exchange/assembly.dest/out.jar.
# Without --settings it uses tools/exchange/exchange.cfg. It execs java, so SIGTERM reaches the exchange.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
JAR=${EXCHANGE_JAR:-$ROOT/out/exchange/assembly.dest/out.jar}
if [ "${1:-}" = "--jar" ]; then
  JAR=$2
  shift 2
fi
if [ ! -f "$JAR" ]; then
  echo "run.sh: no exchange jar at $JAR (build it: cd $ROOT && ./mill -i exchange.assembly)" >&2
  exit 1
fi
case " $* " in
  *" --settings "*|*" --help "*|*" -h "*) ;;
  *) set -- --settings "$HERE/exchange.cfg" "$@" ;;
esac
exec java ${EXCHANGE_JAVA_OPTS:-} -jar "$JAR" "$@"
