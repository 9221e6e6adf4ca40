"""The style of a problem in the app's own text, readable on any terminal.

Bold alone does not mark a problem: on a 16-colour terminal, or with NO_COLOR, a bold "problem:"
or "REJ" reads like any heading. A problem is drawn in reverse video (and bold) wherever it is
not already in the theme's error colour, so it stands out from normal lines in every palette,
and its words say what it is when nothing else is shown.
"""

PROBLEM = "bold reverse"
