// Placeholder until the guard lands: deny everything (fail closed), exit 2.
process.stderr.write("forge guard is not built yet, denying\n");
process.exit(2);
