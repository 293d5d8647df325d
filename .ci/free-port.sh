# shellcheck shell=bash
# Sourced by .ci/servers.sh, bench/load.sh and bench/instructions.sh.

# free_port prints a loopback port nothing listens on now, below the
# kernel's range of ephemeral ports. A port inside that range (the kernel's
# own choice when binding to port 0, among others) can be taken as the local
# port of some client's connection before the server meant for it binds it:
# in one run of bench/load.sh two of three replicas failed so, and CI's
# checks start servers while the tests beside them make many loopback
# connections.
free_port() {
  local p low
  read -r low _ </proc/sys/net/ipv4/ip_local_port_range || low=32768
  ((low > 11000)) || low=60001 # no room below: anywhere
  for p in $(shuf -i 10000-$((low - 1)) -n 100); do
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
      echo "$p"
      return
    fi
  done
  echo "no free port found" >&2
  return 1
}
