"""An alert command for tests: appends what it was given to the file named first."""

import json
import os
import sys

with open(sys.argv[1], "a", encoding="utf-8") as out:
    out.write(json.dumps({"text": sys.argv[-1], "kind": os.environ.get("TCLK_ALERT_KIND"),
                          "deal": os.environ.get("TCLK_ALERT_DEAL")}) + "\n")
