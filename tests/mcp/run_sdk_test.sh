#!/bin/sh
# Runs sdk_client.mjs against sm-mcp with the official MCP TypeScript SDK.
# The SDK (the versions package-lock.json pins) is installed once into
# NODE_DIR with npm ci; later runs reuse it while the lock file is unchanged.
# Usage: run_sdk_test.sh SM_MCP VERSION NODE_DIR [SCRIPT [ARG...]]
#   SCRIPT (default sdk_client.mjs) gets SM_MCP VERSION and the ARGs.
# Exit status 77 (ctest: skipped) when node or npm is not installed.
set -eu
server=$1 version=$2 dir=$3
script=${4:-sdk_client.mjs}
[ $# -ge 4 ] && shift 4 || shift 3
here=$(cd "$(dirname "$0")" && pwd)

for tool in node npm; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        echo "run_sdk_test: $tool is not installed (Debian: apt-get install nodejs npm); skipped" >&2
        exit 77
    fi
done

mkdir -p "$dir"
stamp="$dir/.installed"
want=$(cat "$here/package.json" "$here/package-lock.json" | cksum)
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ] ||
   [ ! -d "$dir/node_modules/@modelcontextprotocol/sdk" ]; then
    cp "$here/package.json" "$here/package-lock.json" "$dir/"
    rm -f "$stamp"
    npm ci --prefix "$dir" --ignore-scripts --no-audit --no-fund --loglevel=error >&2
    echo "$want" > "$stamp"
fi
cp "$here/$script" "$dir/$script"
exec node "$dir/$script" "$server" "$version" "$@"
