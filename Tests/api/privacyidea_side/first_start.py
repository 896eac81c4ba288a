"""privacyIDEA's first start as its administrator does it with pi-manage: `pi-manage setup
create_enckey`, `create_audit_keys`, `create_tables` and `pi-manage admin add NAME -p PASSWORD`,
the same commands run in one process, since each pi-manage run imports privacyIDEA anew (2 s of CPU
each). Run by privacyidea_server.py in privacyIDEA's venv; the administrator's name and password
come on standard input, a line each, so no process list shows the password.

Environment: PRIVACYIDEA_CONFIGFILE.
"""

import sys

from privacyidea.cli.pimanage import cli

admin, password = sys.stdin.read().splitlines()
for command in (["setup", "create_enckey"], ["setup", "create_audit_keys"], ["setup", "create_tables"],
                ["admin", "add", admin, "-p", password]):
    status = cli.main(command, prog_name="pi-manage", standalone_mode=False)
    if status:
        sys.exit(f"pi-manage {command[0]} {command[1]} failed with status {status}")
