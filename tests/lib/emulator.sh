# Start and stop sm-emulator from bash tests. Source this file, then:
#
#   emu_start --endpoint ep=instant --time-scale 20   # sets EMU_URL and EMU_PID
#   curl "$EMU_URL/ping"
#   emu_stats                                          # prints GET /emulator/stats
#   emu_stop                                           # SIGTERM + wait; returns its exit code
#   emu_make_cert DIR                                  # DIR/cert.pem + DIR/key.pem, self-signed
#
# The binary is $SM_EMULATOR, else the newest build*/emulator/sm-emulator of the project.
# emu_start adds --listen 127.0.0.1:0 unless given --listen, and reads the URL from the
# emulator's first line of output through a FIFO (no sleeping). One emulator at a time
# per shell; emu_stop also runs from an EXIT trap if the caller sets one.

emu_binary() {
    if [ -n "${SM_EMULATOR:-}" ]; then printf '%s\n' "$SM_EMULATOR"; return; fi
    local root
    root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
    ls -t "$root"/build*/emulator/sm-emulator 2>/dev/null | head -n 1
}

emu_start() {
    local bin listen=(--listen 127.0.0.1:0) a
    bin=$(emu_binary)
    [ -x "$bin" ] || { echo "emu_start: sm-emulator not found (set SM_EMULATOR)" >&2; return 1; }
    for a in "$@"; do [ "$a" = --listen ] && listen=(); done
    EMU_DIR=$(mktemp -d)
    mkfifo "$EMU_DIR/out"
    "$bin" "${listen[@]}" "$@" >"$EMU_DIR/out" &
    EMU_PID=$!
    if ! read -r -t 15 EMU_URL <"$EMU_DIR/out" || [ -z "$EMU_URL" ]; then
        echo "emu_start: sm-emulator did not print its URL" >&2
        emu_stop
        return 1
    fi
    export EMU_URL EMU_PID
}

emu_stop() {
    local rc=0
    if [ -n "${EMU_PID:-}" ]; then
        kill "$EMU_PID" 2>/dev/null
        wait "$EMU_PID" 2>/dev/null || rc=$?
    fi
    [ -n "${EMU_DIR:-}" ] && rm -rf "$EMU_DIR"
    EMU_PID= EMU_DIR= EMU_URL=
    return $rc
}

emu_stats() {
    curl -sfk "$EMU_URL/emulator/stats"
}

emu_make_cert() {
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 \
        -subj /CN=127.0.0.1 -addext "subjectAltName=IP:127.0.0.1,DNS:localhost" \
        -keyout "$1/key.pem" -out "$1/cert.pem" >/dev/null 2>&1
}
