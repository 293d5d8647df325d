# Reads iCalendar files with the icalendar library (Debian python3-icalendar)
# and prints, for each, "# path" and one line per event:
# UID|SEQUENCE|DTSTAMP|DTSTART|DTEND or -|SUMMARY, so the Go test compares
# what a real parser understood with what was meant.
#
# Strict: the library keeps a line it cannot read as an error of the event
# (and drops the value) rather than failing, and reads a date where a
# date-time belongs; either exits non-zero here, as does a line over 75
# octets, a bare LF or CR, or an end not after its start.
import datetime
import sys

import icalendar


def fail(path, why):
    sys.exit(path + ": " + why)


def utc(value):
    return isinstance(value, datetime.datetime) and value.utcoffset() == datetime.timedelta(0)


for path in sys.argv[1:]:
    print("# " + path)
    with open(path, "rb") as f:
        data = f.read()
    if not data.endswith(b"\r\n"):
        fail(path, "the last line does not end in CRLF")
    for n, line in enumerate(data[:-2].split(b"\r\n"), 1):
        if b"\n" in line or b"\r" in line:
            fail(path, "line %d holds a bare LF or CR" % n)
        if len(line) > 75:
            fail(path, "line %d is %d octets, more than 75" % (n, len(line)))
    cal = icalendar.Calendar.from_ical(data)
    for component in cal.walk():
        if component.errors:
            fail(path, "%s: unreadable: %s" % (component.name, component.errors))
    if cal.get("VERSION") != "2.0" or not cal.get("PRODID"):
        fail(path, "missing VERSION:2.0 or PRODID")
    for ev in cal.walk("VEVENT"):
        for required in ("UID", "DTSTAMP", "DTSTART", "SUMMARY"):
            if ev.get(required) is None:
                fail(path, "event without " + required)
        stamp = ev.decoded("DTSTAMP")
        if not utc(stamp):
            fail(path, "DTSTAMP is not a UTC date-time")
        start = ev.decoded("DTSTART")
        all_day = ev["DTSTART"].params.get("VALUE") == "DATE"
        if all_day != (type(start) is datetime.date) or not (all_day or utc(start)):
            fail(path, "DTSTART is neither a DATE (VALUE=DATE) nor a UTC date-time")
        end = "-"
        if ev.get("DTEND") is not None:
            stop = ev.decoded("DTEND")
            if (ev["DTEND"].params.get("VALUE") == "DATE") != all_day or type(stop) is not type(start):
                fail(path, "DTEND is not of DTSTART's type")
            if stop <= start:
                fail(path, "DTEND is not after DTSTART")
            end = stop.isoformat()
        print(ev["UID"], int(ev["SEQUENCE"]), stamp.isoformat(), start.isoformat(), end, ev["SUMMARY"], sep="|")
