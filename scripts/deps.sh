#!/bin/bash
# Installs what ibsetup needs to build and test, from the distribution's packages only.
# Works as root, or as a user with sudo. Debian 12 and Rocky Linux 8/9.
set -euo pipefail

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  SUDO="sudo"
fi

debian_packages=(
  build-essential cmake ninja-build pkg-config
  libyaml-cpp-dev libcli11-dev nlohmann-json3-dev libgtest-dev libgmock-dev libnl-3-dev
  libibverbs-dev librdmacm-dev libnm-dev infiniband-diags python3 util-linux iproute2 iputils-ping
  libibumad-dev libibmad-dev
  qemu-system-x86 busybox-static cpio kmod ibverbs-utils ibverbs-providers
  rpm rpmlint debhelper dpkg-dev fakeroot lintian mandoc bash-completion
  network-manager dbus-daemon mstflint clustershell pdsh
  strace # delays system calls to land signals and races where tests need them (tests/hostile)
  clang-format clang-tidy abigail-tools
  clang libclang-rt-dev # libFuzzer, ASan and UBSan for the fuzz harnesses (scripts/fuzz)
  opensm ibsim-utils libumad2sim0 # a real OpenSM over a simulated fabric (tests/fabric)
  perftest # ib_write_bw and ib_send_lat, the reference of bench/rdma.sh (in the QEMU guest)
  ansible-core python3-voluptuous # the Ansible module's playbook tests and validate-modules (tests/ansible)
  prometheus prometheus-node-exporter # promtool and a real textfile collector (tests/metrics)
  python3-jsonschema # the --json outputs against docs/schema (tests/schema)
)
rocky_packages=(
  gcc-c++ cmake ninja-build pkgconf-pkg-config
  yaml-cpp-devel cli11-devel json-devel gtest-devel gmock-devel libnl3-devel rdma-core-devel
  NetworkManager-libnm-devel
  infiniband-diags mstflint clustershell strace
  opensm # tests/fabric also needs ibsim, which Rocky does not ship: those tests skip there
  clang-tools-extra
  clang compiler-rt # libFuzzer (scripts/fuzz)
  ansible-core # the Ansible module's playbook tests (tests/ansible; AppStream)
  python3-jsonschema # tests/schema
)

missing_debian() {
  local p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || echo "$p"
  done
}

if command -v apt-get >/dev/null 2>&1; then
  mapfile -t need < <(missing_debian "${debian_packages[@]}")
  if [ "${#need[@]}" -gt 0 ]; then
    echo "deps: installing ${need[*]}"
    $SUDO apt-get update -q
    # network-manager's and opensm's maintainer scripts start their services; the tests run a
    # private NetworkManager and their own OpenSM instead. A temporary policy-rc.d stops the
    # host's from being started.
    added_policy=""
    if [ ! -e /usr/sbin/policy-rc.d ]; then
      printf '#!/bin/sh\nexit 101\n' | $SUDO tee /usr/sbin/policy-rc.d >/dev/null
      $SUDO chmod 755 /usr/sbin/policy-rc.d
      added_policy=yes
    fi
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${need[@]}"
    if [ -n "$added_policy" ]; then
      $SUDO rm -f /usr/sbin/policy-rc.d
    fi
  fi
elif command -v dnf >/dev/null 2>&1; then
  # yaml-cpp-devel, cli11-devel, json-devel and gtest-devel live in EPEL and PowerTools/CRB.
  $SUDO dnf install -y -q epel-release dnf-plugins-core
  $SUDO dnf config-manager --set-enabled powertools 2>/dev/null ||
    $SUDO dnf config-manager --set-enabled crb
  $SUDO dnf install -y -q "${rocky_packages[@]}"
else
  echo "deps: neither apt-get nor dnf found; install by hand: ${debian_packages[*]}" >&2
  exit 1
fi
