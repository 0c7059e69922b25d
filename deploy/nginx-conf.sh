# Sourced by deploy/run.sh and bench/scaleout.sh: writes deploy/nginx.conf with its @…@ fields
# filled in (tests/common/engines.rs does the same in Rust).
#
#   nginx_conf DIR PORT SERVERS [WORKER_CONNECTIONS]   writes DIR/nginx.conf
#
# SERVERS is the upstream lines, one `server HOST:PORT …;` per line.
nginx_conf() {
  local dir="$1" port="$2" servers="$3" connections="${4:-}" line
  mkdir -p "$dir"
  while IFS= read -r line; do
    case "$line" in
      "@SERVERS@") printf '%s' "$servers" ;;
      *)
        line="${line//@RUNTIME_DIR@/$dir}"
        line="${line//@NGINX_PORT@/$port}"
        if [ -n "$connections" ]; then
          line="${line//worker_connections 4096/worker_connections $connections}"
        fi
        printf '%s\n' "$line"
        ;;
    esac
  done <"$(dirname "${BASH_SOURCE[0]}")/nginx.conf" >"$dir/nginx.conf"
}
