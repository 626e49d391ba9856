from skilltool.cli import main

main()
