from warehouse.cli import main

main()
