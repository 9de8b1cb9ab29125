import EmulatorCLI

await EmulatorCLIMain.main()
