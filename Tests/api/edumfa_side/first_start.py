"""eduMFA's first start as its administrator does it with edumfa-manage: `edumfa-manage
create_enckey`, `create_audit_keys`, `create_tables` and `edumfa-manage admin add NAME -p PASSWORD`
(eduMFA's commands are top-level, privacyIDEA's are under `setup`), the same commands run in one
process, since each edumfa-manage run imports eduMFA anew (2 s of CPU each). Run by
privacyidea_server.py in eduMFA's venv; the administrator's name and password come on standard
input, a line each, so no process list shows the password. It is for a fresh folder only:
create_enckey and create_audit_keys fail where their files exist.

Environment: EDUMFA_CONFIGFILE.
"""

import sys

from edumfa.commands.manage.main import cli

admin, password = sys.stdin.read().splitlines()
for command in (["create_enckey"], ["create_audit_keys"], ["create_tables"], ["admin", "add", admin, "-p", password]):
    status = cli.main(["-q", *command], prog_name="edumfa-manage", standalone_mode=False)  # -q: no banner
    if status:
        sys.exit(f"edumfa-manage {' '.join(command[:2])} failed with status {status}")
