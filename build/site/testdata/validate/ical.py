# Reads iCalendar files with the icalendar library (Debian python3-icalendar)
# and prints, for each, "# path" and one line per event:
# UID|SEQUENCE|DTSTART|DTEND or -|SUMMARY, so the Go test compares what a
# real parser understood with what was meant.
import sys

import icalendar

for path in sys.argv[1:]:
    print("# " + path)
    with open(path, "rb") as f:
        data = f.read()
    cal = icalendar.Calendar.from_ical(data)
    if cal.get("VERSION") != "2.0" or not cal.get("PRODID"):
        sys.exit("missing VERSION:2.0 or PRODID")
    for ev in cal.walk("VEVENT"):
        for required in ("UID", "DTSTAMP", "DTSTART", "SUMMARY"):
            if ev.get(required) is None:
                sys.exit("event without " + required)
        start = ev.decoded("DTSTART")
        end = ev.decoded("DTEND").isoformat() if ev.get("DTEND") is not None else "-"
        if start.tzinfo is None:
            sys.exit("DTSTART is not UTC")
        print(ev["UID"], int(ev["SEQUENCE"]), start.isoformat(), end, ev["SUMMARY"], sep="|")
