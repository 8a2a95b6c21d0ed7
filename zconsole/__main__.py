from zconsole.cli import main

raise SystemExit(main())
