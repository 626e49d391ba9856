from skilltool.entry import main

main()
