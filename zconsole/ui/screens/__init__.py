"""One screen per area. Each is a `ZScreen`: header, body, problems panel, footer."""
