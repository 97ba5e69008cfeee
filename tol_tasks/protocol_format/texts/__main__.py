"""``python -m tol_tasks.protocol_format.texts > web/src/texts.json``: the plugin's copy."""

import sys

from . import as_json

sys.stdout.write(as_json())
