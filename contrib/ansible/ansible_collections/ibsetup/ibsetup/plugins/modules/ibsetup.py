# -*- coding: utf-8 -*-
# Ansible module for ibsetup: plan/apply/check a node against a cluster profile.
# Part of ibsetup (contrib/ansible); the license is the project's (see its README).

# Runs on the managed node with its Python: Rocky 8's platform-python is 3.6, so no f-strings
# past what 3.6 has and nothing newer than the standard library and ansible.module_utils.
from __future__ import absolute_import, division, print_function
__metaclass__ = type

DOCUMENTATION = r'''
---
module: ibsetup
short_description: Configure IP over InfiniBand on a node with ibsetup
description:
  - Brings the node's IPoIB interfaces (MTU, addresses, P_Key children, modes, link state and
    the HCAs' firmware link types) to what a cluster profile declares, by running
    C(ibsetup apply --json) on the managed node.
  - In check mode it runs C(ibsetup apply --dry-run --json) with the task's I(backend) instead,
    reports whether anything would change and, with C(--diff), what would be done (firmware
    link types, then the netlink plan's actions or the NetworkManager profiles to add, update
    or activate); nothing is changed. When a link type to set, or one set earlier, waits for
    the next boot, the real run stops after the firmware step, so check mode then returns
    I(reboot_required=true) and lists the interfaces' steps as C(after the reboot).
  - With I(state=checked) it runs C(ibsetup check --json) (the pre-flight checks used before MPI
    jobs) and fails the task when the node fails a check.
  - ibsetup itself must be installed on the managed node; the module passes it an argument list,
    never a shell command line.
version_added: "0.1.0"
author:
  - ibsetup maintainers (!UNKNOWN)
requirements:
  - ibsetup on the managed node (the C(ibsetup) package, or I(executable))
options:
  profile:
    description:
      - Path of the cluster profile (YAML) on the managed node.
    type: path
    required: true
  node:
    description:
      - Node name in the profile.
      - Default is what ibsetup uses, the machine's short host name.
    type: str
  state:
    description:
      - C(applied) converges the node to the profile (C(ibsetup apply)); in check mode it only
        previews it (C(ibsetup apply --dry-run)).
      - C(checked) runs ibsetup's pre-flight checks (C(ibsetup check)) and changes nothing; the
        task fails when the node fails.
    type: str
    choices: [applied, checked]
    default: applied
  backend:
    description:
      - How apply changes the host (C(--backend)). C(auto) uses NetworkManager when it runs,
        else netlink.
      - Only used with I(state=applied).
    type: str
    choices: [auto, networkmanager, netlink]
    default: auto
  prune:
    description:
      - Also delete P_Key children of declared interfaces that the profile does not declare
        (C(--prune)).
    type: bool
    default: false
  wait:
    description:
      - How long apply waits for another C(ibsetup apply) or C(ibsetup firmware --apply) on the
        node to finish (C(--wait SECONDS)).
      - A number of seconds, or C(true) for 300 seconds, or C(false) for 0 (fail at once when
        another run holds the lock).
    type: raw
    default: 0
  firmware:
    description:
      - Whether the HCAs' firmware link types (C(link_type) in the profile) are set too.
        C(false) passes C(--no-firmware).
      - When apply changes a link type the interfaces are left alone until the node reboots;
        the module then returns I(reboot_required=true) and I(changed=true) without failing.
        A reboot that an earlier run already made necessary is I(reboot_required=true) with
        I(changed=false).
    type: bool
    default: true
  lock_file:
    description:
      - The lock that allows one apply at a time (C(--lock-file)); ibsetup's default is
        C(/run/ibsetup.lock). Check mode checks it as the real run would, without taking it.
    type: path
  disable:
    description:
      - Check ids or groups to skip with I(state=checked) (C(--disable), e.g. C(ip.peer) or
        C(rdma)).
    type: list
    elements: str
    default: []
  executable:
    description:
      - Path of the ibsetup program. Default is C(ibsetup) found in C(PATH), C(/usr/sbin) or C(/usr/local/sbin).
    type: path
notes:
  - Exit codes of ibsetup are returned as I(rc); a refused profile (exit 3), something the node
    lacks or refuses (exit 4, e.g. no permission or a lock file that is not one), an apply that
    failed and was rolled back (exit 7), a held lock (exit 8) or a failed check (exit 5) fail
    the task with ibsetup's own messages in I(msg), including any rollback step that failed.
  - A failed apply is I(changed=false) when its rollback completed, and I(changed=true) when a
    firmware link type was set before the failure (it stays set, and I(reboot_required) says so)
    or a rollback step failed.
  - I(node) and I(disable) reach ibsetup as given, without C(~) or C($VAR) expansion; the path
    options (I(profile), I(lock_file), I(executable)) are expanded as Ansible expands every
    path. The profile is passed after C(--), so a path that starts with C(-) is still a path.
  - Bound the wait for another run with I(wait), not the task's C(timeout). On a timeout
    Ansible stops waiting but does not end the module's process, so an ibsetup
    still waiting for the lock would go on and change the node after the task was reported.
  - Check mode previews with the backend the real run would use, so a node whose kernel state
    is in order but whose NetworkManager profiles are not stored or not active is reported as
    changed.
  - Needs root on the managed node (C(become)) for I(state=applied) without check mode.
attributes:
  check_mode:
    description: Runs C(ibsetup apply --dry-run) instead of C(ibsetup apply); I(state=checked)
      changes nothing in any mode.
    support: full
  diff_mode:
    description: Returns the planned (check mode) or applied actions as a prepared diff.
    support: full
'''

EXAMPLES = r'''
- name: Configure IPoIB on the compute nodes, a few at a time
  hosts: compute
  become: true
  serial: 16
  tasks:
    - name: Bring IPoIB to the cluster profile
      ibsetup.ibsetup.ibsetup:
        profile: /etc/ibsetup/cluster.yaml
        backend: networkmanager
        wait: 60
      register: ib

    - name: Reboot when a firmware link type changed
      ansible.builtin.reboot:
      when: ib.reboot_required | default(false)

    - name: Apply again after the reboot (the interfaces were left alone)
      ibsetup.ibsetup.ibsetup:
        profile: /etc/ibsetup/cluster.yaml
        backend: networkmanager
      when: ib.reboot_required | default(false)

    - name: Fail the node when the fabric is not healthy
      ibsetup.ibsetup.ibsetup:
        profile: /etc/ibsetup/cluster.yaml
        state: checked
        # mpi.memlock would read the limit of this become-root process, not the one jobs get
        # from slurmd: check it from slurmd's HealthCheckProgram instead.
        disable: [rdma, mpi.memlock]

- name: Preview the changes without making them
  ibsetup.ibsetup.ibsetup:
    profile: /etc/ibsetup/cluster.yaml
    node: cn017
  check_mode: true
  diff: true
'''

RETURN = r'''
rc:
  description: ibsetup's exit code (0 success, 3 invalid input, 4 environment (permission, a
    missing tool, a file that cannot be used), 5 a check failed, 7 apply failed and was rolled
    back, 8 lock held, 9 reboot required; see ibsetup(8)).
  returned: when ibsetup ran
  type: int
  sample: 0
cmd:
  description: The argument list ibsetup was run with.
  returned: when ibsetup ran
  type: list
  elements: str
  sample: [/usr/sbin/ibsetup, apply, --json, --backend, auto, --wait, "0", --,
           /etc/ibsetup/cluster.yaml]
node:
  description: The node name ibsetup resolved (its C(host) field).
  returned: when ibsetup printed JSON
  type: str
  sample: cn017
plan:
  description: The netlink backend's plan (C(ibsetup apply --dry-run --json)), the actions
    apply would take.
  returned: check mode with state=applied, when the backend is netlink
  type: dict
  sample: {"host": "cn017", "changes": 1, "errors": [], "warnings": [],
           "actions": [{"op": "set_mtu", "interface": "ib0", "text": "~ ib0 mtu 2044 -> 4092",
                        "from": 2044, "to": 4092}]}
report:
  description: C(ibsetup apply --json), what apply did (C(done)), what it rolled back and why;
    in check mode with the NetworkManager backend, its dry run, whose C(done) lists what
    would be done ("would add ...", "would update ... (properties)", "would activate ...").
  returned: state=applied, when apply got as far as the interfaces (in check mode, with the
    NetworkManager backend)
  type: dict
  sample: {"host": "cn017", "backend": "netlink", "ok": true, "changes": 1,
           "done": ["~ ib0 mtu 2044 -> 4092"], "rollback": [], "not_converged": [],
           "failure": null}
firmware:
  description: The firmware link-type step of apply (C(ibsetup firmware --json)'s shape), when
    apply set link types; in check mode, what it found (C(change) per port).
  returned: when apply changed or tried to change firmware link types, and in check mode when
    the profile sets link types
  type: dict
reboot_required:
  description: A firmware link type takes effect at the next boot (set by this run or an
    earlier one); the interfaces were not changed (exit 9), or a later firmware step failed
    (exit 4) after this one was set. Reboot, then run the module again.
    In check mode, whether the real run would stop after the firmware step for a reboot; the
    diff then lists the interfaces' changes as C(after the reboot), and I(changed) counts the
    link types only.
  returned: state=applied
  type: bool
  sample: false
check:
  description: C(ibsetup check --json), every check result with its status, expected and
    observed values.
  returned: state=checked
  type: dict
  sample: {"host": "cn017", "ok": false, "checks": [{"id": "ipoib.up", "subject": "ib0",
           "status": "fail", "expected": "up with carrier", "observed": "down",
           "message": "ib0: not up with carrier (down)"}]}
failed_checks:
  description: The messages of the checks that failed.
  returned: state=checked
  type: list
  elements: str
  sample: ["ib0: not up with carrier (down)"]
stdout:
  description: ibsetup's standard output.
  returned: when ibsetup ran
  type: str
stderr:
  description: ibsetup's standard error (warnings and errors).
  returned: when ibsetup ran
  type: str
'''

import json
import os
import re
import signal

from ansible.module_utils.basic import AnsibleModule
from ansible.module_utils.six import string_types

# ibsetup's exit codes (README "Exit codes"); the module maps them to task outcomes.
RC_OK = 0
RC_CHECK_FAILED = 5
RC_REBOOT_REQUIRED = 9
WAIT_TRUE_SECONDS = 300
WAIT_MAX_SECONDS = 1000000  # ibsetup's own bound on --wait


def failed_step(step):
    """A rollback step that failed, in either backend's words: netlink's "...: FAILED: ...",
    NetworkManager's "undo ID ... failed: ..." and "roll back checkpoint ... failed: ..."."""
    return ': FAILED' in step or '... failed:' in step


def failed_rollback(doc):
    """The rollback steps that failed: the report's own rollback_failed list (ibsetup says which,
    by each backend's rule), else, from an ibsetup before it had that list, failed_step's."""
    if isinstance(doc.get('rollback_failed'), list):
        return texts(doc.get('rollback_failed'))
    return [r for r in texts(doc.get('rollback')) if failed_step(r)]


def json_documents(text):
    """Every JSON object ibsetup printed: apply prints the firmware step's object before the
    interfaces' report when it set link types, so stdout may hold more than one."""
    decoder = json.JSONDecoder()
    docs = []
    pos = 0
    text = text.strip()
    while pos < len(text):
        try:
            doc, end = decoder.raw_decode(text, pos)
        except (ValueError, RuntimeError):  # nesting past Python's stack: RecursionError,
            break                           # a RuntimeError (its own class only from 3.5)
        if isinstance(doc, dict):
            docs.append(doc)
        pos = end
        while pos < len(text) and text[pos].isspace():
            pos += 1
    return docs


def texts(value):
    """A member of ibsetup's JSON that is a list of strings: its strings (anything else in it
    as JSON text); [] when it is not a list."""
    if not isinstance(value, list):
        return []
    return [v if isinstance(v, string_types) else json.dumps(v) for v in value]


def shown(text):
    """Text from the host in the diff, with control characters escaped as ibsetup does, and
    bytes that were not UTF-8 (run_command keeps them as lone surrogates, which syslog and the
    JSON result cannot encode) as "?"."""
    if isinstance(text, bytes):  # Python 2's str
        text = text.decode('utf-8', 'replace')
    else:
        text = text.encode('utf-8', 'replace').decode('utf-8')
    return ''.join('\\x%02x' % ord(c) if ord(c) < 0x20 or 0x7f <= ord(c) <= 0x9f else c
                   for c in text)


def wait_seconds(module, value):
    if isinstance(value, bool):
        return WAIT_TRUE_SECONDS if value else 0
    text = str(value).strip().lower()
    if text in ('true', 'yes', 'on'):
        return WAIT_TRUE_SECONDS
    if text in ('false', 'no', 'off'):
        return 0
    try:
        seconds = int(text)
    except ValueError:
        module.fail_json(msg='wait: %r is neither a number of seconds nor a boolean' % (value,))
    if seconds < 0 or seconds > WAIT_MAX_SECONDS:
        module.fail_json(msg='wait: %d is not from 0 to %d seconds' % (seconds, WAIT_MAX_SECONDS))
    return seconds


# ibsetup's warnings on stderr: "ibsetup: warning: ..." (and a profile's FILE:LINE:COL form).
# Classified by where the line starts: an error line may quote a path holding "warning:".
WARNING_LINE = re.compile(r'^(?:ibsetup: warning: |[^\s:][^:]*(?::\d+){0,2}: warning: )')


def is_warning(line):
    return WARNING_LINE.match(line) is not None


def exit_text(rc):
    """rc as run_command gives it: a negative one is the signal that ended ibsetup."""
    if rc < 0:
        # signal.Signals is Python 3's; Python 2 has only the SIG* constants.
        # Aliases (SIGIOT, SIGCLD) give way to the usual name, the first in alphabetical order.
        names = dict((getattr(signal, n), n) for n in sorted(dir(signal), reverse=True)
                     if n.startswith('SIG') and not n.startswith('SIG_'))
        return 'killed by %s' % names.get(-rc, 'signal %d' % -rc)
    return 'exit %d' % rc


def error_messages(stderr, docs):
    """ibsetup's own words for a failure: the JSON's errors and failure, then its error lines
    on stderr (an invalid profile prints nothing on stdout, only FILE:LINE:COL lines)."""
    out = []
    for doc in docs:
        out += texts(doc.get('errors'))
        if doc.get('failure'):
            out.append('failure: %s' % (doc['failure'],))
        out += ['not converged: %s' % nc for nc in texts(doc.get('not_converged'))]
        # A rollback step that failed: the host is not back where it was.
        out += ['rollback: %s' % r for r in failed_rollback(doc)]
    for line in stderr.splitlines():
        line = line.rstrip()
        if not line or line.startswith('ibsetup: backend ') or is_warning(line):
            continue
        out.append(line)
    seen = set()
    unique = []
    for m in out:
        if m not in seen:
            seen.add(m)
            unique.append(m)
    return unique


def common_args(params):
    args = []
    if params['node'] is not None:
        args += ['--node', params['node']]
    return args


def profile_args(params):
    # Last, after "--": a profile path that starts with "-" is a path, not an option.
    return ['--', params['profile']]


def firmware_args(params):
    return [] if params['firmware'] else ['--no-firmware']


def prepared_diff(header, lines):
    if not lines:
        return {'prepared': ''}
    return {'prepared': '%s\n%s\n' % (shown(header),
                                        '\n'.join('  ' + shown(l) for l in lines))}


class Runner(object):
    def __init__(self, module, executable):
        self.module = module
        self.executable = executable
        self.result = {'changed': False}

    def run(self, args):
        cmd = [self.executable] + args
        # A list, so run_command execs ibsetup directly: no shell parses the profile path. And
        # no expansion of ~ or $VAR either: the values reach ibsetup as they were given.
        rc, stdout, stderr = self.module.run_command(cmd, check_rc=False,
                                                     expand_user_and_vars=False)
        self.result.update(rc=rc, cmd=cmd, stdout=stdout, stderr=stderr)
        docs = json_documents(stdout)
        for doc in docs:
            if 'host' in doc:
                self.result['node'] = doc['host']
        return rc, docs, stderr

    def fail(self, what, rc, docs, stderr, why=None):
        messages = error_messages(stderr, docs) + ([why] if why else [])
        text = '\n'.join(shown(m) for m in messages) if messages else 'no message'
        self.module.fail_json(msg='ibsetup %s failed (%s): %s' % (what, exit_text(rc), text),
                              **self.result)

    def warn(self, docs):
        # Plan warnings are in the JSON; the profile's (FILE:LINE:COL: warning: ...) on stderr.
        found = []
        for doc in docs:
            found += texts(doc.get('warnings'))
        for line in self.result.get('stderr', '').splitlines():
            if is_warning(line):
                found.append(line.replace('ibsetup: warning: ', '', 1))
        seen = set()
        for w in found:
            if w not in seen:
                seen.add(w)
                self.module.warn('ibsetup: %s' % shown(w))


def firmware_ports(doc):
    """(device, port) pairs of a firmware step's JSON, of the right shapes only."""
    devices = doc.get('devices') if isinstance(doc.get('devices'), list) else []
    for d in devices:
        ports = d.get('ports') if isinstance(d, dict) and isinstance(d.get('ports'), list) else []
        for p in ports:
            if isinstance(p, dict):
                yield d, p


def firmware_lines(doc):
    """The link types a firmware step would set (its JSON's ports with change true)."""
    return ['firmware %s port %s: next boot %s -> %s' % (
        d.get('device'), p.get('port'), p.get('next_boot'), p.get('desired'))
        for d, p in firmware_ports(doc) if p.get('change') is True]


def port_owes_reboot(p):
    """Whether a port of the dry run's firmware document owes a reboot once apply has set it,
    as ibsetup decides after the set (reboot_owed, src/firmware/firmware.cpp): its next boot
    becomes the desired type, which a reboot must bring unless it is vpi or already running. A
    port left as it is owes what the dry run says (reboot_pending)."""
    if p.get('change') is not True:
        return p.get('reboot_pending') is True
    desired = p.get('desired')
    if desired not in ('ib', 'eth'):
        return False
    running = {'InfiniBand': 'ib', 'Ethernet': 'eth'}.get(p.get('running'))
    # A running type ibsetup cannot read may well differ: a reboot is owed.
    return running != desired


def firmware_waits_for_reboot(doc):
    """Whether apply would stop after its firmware step (exit 9): a link type it sets, or one
    an earlier run set, takes effect at the next boot, and the interfaces wait for it."""
    return any(port_owes_reboot(p) for _, p in firmware_ports(doc))


def do_preview(runner, params):
    """Check mode: apply --dry-run with the task's backend, so that what it reports is what
    that backend would do (the NetworkManager backend's activations included), and nothing is
    changed."""
    args = ['apply', '--dry-run', '--json', '--backend', params['backend']]
    args += common_args(params) + firmware_args(params)
    if params['prune']:
        args.append('--prune')
    if params['lock_file']:
        # Checked, not taken: a lock_file the real run would refuse fails here too.
        args += ['--lock-file', params['lock_file']]
    rc, docs, stderr = runner.run(args + profile_args(params))
    firmware = [d for d in docs if 'reboot_required' in d and 'declared' in d]
    plans = [d for d in docs if 'actions' in d and 'backend' not in d]
    reports = [d for d in docs if 'backend' in d]
    if rc != RC_OK or not (plans or reports):
        runner.fail('apply --dry-run', rc, docs, stderr)
    runner.warn(docs)
    lines = []
    reboot = False
    for doc in firmware:
        runner.result['firmware'] = doc
        lines += firmware_lines(doc)
        reboot = reboot or firmware_waits_for_reboot(doc)
    if plans:
        plan = plans[0]
        runner.result['plan'] = plan
        actions = plan.get('actions') if isinstance(plan.get('actions'), list) else []
        later = ['%s' % (a.get('text') or a.get('op') or '',) for a in actions
                 if isinstance(a, dict)]
    else:
        runner.result['report'] = reports[0]
        later = texts(reports[0].get('done'))
    # The dry run plans the interfaces whatever the firmware step says; the real run stops
    # after that step when a link type waits for the next boot (exit 9), so only the link types
    # change now. The interfaces' plan is still shown, as what the run after the reboot will
    # start from.
    runner.result['reboot_required'] = reboot
    if reboot:
        runner.result['changed'] = bool(lines)
        header = ('plan for %s: %d changes, then a reboot; the interfaces wait for it'
                  % (runner.result.get('node', ''), len(lines)))
        lines += ['after the reboot: %s' % (l,) for l in later]
    else:
        lines += later
        runner.result['changed'] = bool(lines)
        header = 'plan for %s: %d changes' % (runner.result.get('node', ''), len(lines))
    runner.result['diff'] = prepared_diff(header, lines)


def do_apply(runner, params, wait):
    args = ['apply', '--json', '--backend', params['backend']]
    args += common_args(params) + firmware_args(params)
    args += ['--wait', str(wait)]
    if params['prune']:
        args.append('--prune')
    if params['lock_file']:
        args += ['--lock-file', params['lock_file']]
    rc, docs, stderr = runner.run(args + profile_args(params))
    report = None
    firmware = None
    done = []
    firmware_done = []
    for doc in docs:
        if 'backend' in doc:
            report = doc
            done += texts(doc.get('done'))
        elif 'reboot_required' in doc:
            firmware = doc
            runner.result['firmware'] = doc
            firmware_done += ['firmware %s port %s: %s -> %s' % (d.get('device'), d.get('port'),
                                                                  d.get('from'), d.get('to'))
                              for d in doc.get('done') or [] if isinstance(d, dict)]
    done = firmware_done + done
    # A link type set stays set when a later step fails (firmware is never rolled back), as
    # does whatever a failed rollback step left; a rollback that completed changed nothing.
    rollback_failed = report is not None and bool(failed_rollback(report))
    ok = rc in (RC_OK, RC_REBOOT_REQUIRED)
    # Killed by a signal it cannot handle (SIGKILL: the OOM killer, a cgroup's end) or crashed,
    # ibsetup rolled nothing back and printed no report: whatever it had done stays, so the
    # node counts as changed (what it did is unknown).
    killed = rc < 0
    runner.result['changed'] = (bool(done) if ok else
                                bool(firmware_done) or rollback_failed or killed)
    runner.result['reboot_required'] = (rc == RC_REBOOT_REQUIRED or
                                        (firmware is not None and
                                         firmware.get('reboot_required') is True))
    if report is not None:
        runner.result['report'] = report
    runner.result['diff'] = prepared_diff(
        'applied on %s: %d changes' % (runner.result.get('node', ''), len(done)), done)
    runner.warn(docs)
    if killed and report is not None and report.get('ok') is True:
        # The signal came after apply's last step (an async timeout, say): ibsetup printed its
        # report, then ended by the signal. Still a failed task, but not a half-applied node.
        runner.fail('apply', rc, docs, stderr,
                    "the signal came after apply's last step: its report says every change was "
                    'made and verified')
    if killed:
        runner.fail('apply', rc, docs, stderr,
                    'no rollback ran, so the node may be half-applied: run the task again '
                    '(apply converges from where it stopped)')
    if not ok:
        runner.fail('apply', rc, docs, stderr)
    # Exit 0 says the interfaces are done, 9 that a link type waits for the reboot: each comes
    # with its report, and without it nothing says what happened.
    if (rc == RC_OK and report is None) or (rc == RC_REBOOT_REQUIRED and firmware is None):
        runner.fail('apply', rc, docs, stderr,
                    'no JSON report on standard output, so what apply did is unknown')


def do_check(runner, params):
    args = ['check', '--json'] + common_args(params)
    for d in params['disable']:
        args += ['--disable', d]
    rc, docs, stderr = runner.run(args + profile_args(params))
    if rc not in (RC_OK, RC_CHECK_FAILED) or not docs:
        runner.fail('check', rc, docs, stderr)
    check = docs[0]
    checks = check.get('checks') if isinstance(check.get('checks'), list) else []
    failed = ['%s' % (c.get('message') or c.get('id') or '',) for c in checks
              if isinstance(c, dict) and c.get('status') == 'fail']
    runner.result['check'] = check
    runner.result['failed_checks'] = failed
    if rc == RC_CHECK_FAILED or not check.get('ok', False):
        # The messages quote sysfs and peers, decoded by json.loads back to raw control
        # characters: shown, as every other message of the module is.
        runner.module.fail_json(
            msg='ibsetup check failed on %s (exit %d): %s'
                % (shown('%s' % (check.get('host', ''),)), rc,
                   '; '.join(shown(m) for m in failed) or 'see check'),
            **runner.result)


def main():
    module = AnsibleModule(
        argument_spec=dict(
            profile=dict(type='path', required=True),
            node=dict(type='str'),
            state=dict(type='str', default='applied', choices=['applied', 'checked']),
            backend=dict(type='str', default='auto',
                         choices=['auto', 'networkmanager', 'netlink']),
            prune=dict(type='bool', default=False),
            wait=dict(type='raw', default=0),
            firmware=dict(type='bool', default=True),
            lock_file=dict(type='path'),
            disable=dict(type='list', elements='str', default=[]),
            executable=dict(type='path'),
        ),
        supports_check_mode=True,
    )
    params = module.params
    executable = params['executable'] or module.get_bin_path(
        'ibsetup', required=True, opt_dirs=['/usr/sbin', '/usr/local/sbin'])
    # Else run_command fails with the errno as rc (2, 13), which reads as ibsetup's own codes.
    if not (os.path.isfile(executable) and os.access(executable, os.X_OK)):
        module.fail_json(msg='executable: %s is not an executable file' % (executable,))
    # Checked in check mode as well: --check must not pass what a real run would refuse.
    wait = wait_seconds(module, params['wait'])
    runner = Runner(module, executable)
    if params['state'] == 'checked':
        do_check(runner, params)
    elif module.check_mode:
        do_preview(runner, params)
    else:
        do_apply(runner, params, wait)
    # Ansible fails any result whose rc is not 0 unless it says otherwise; ibsetup's 6 (changes
    # pending, check mode) and 9 (reboot required) are successes.
    runner.result['failed'] = False
    module.exit_json(**runner.result)


if __name__ == '__main__':
    main()
