// `node dist/guard-server.cjs <fd>`: the in-box guard server (src/guard/guard-server.ts) on the
// listening socket the runner passed as file descriptor <fd>. It lives as long as the box: the
// box's PID namespace ends it with the agent. It writes nothing: its stdout and stderr are
// /dev/null (the agent's stdout is the runner's transcript).
import { createGuardServer } from "../guard/guard-server.js";
import { processGuardDeps } from "./guard-entry.js";

const fd = Number(process.argv[2]);
if (!Number.isInteger(fd) || fd < 3) process.exit(2);
const server = createGuardServer(processGuardDeps(process.env), process.env);
server.on("error", () => process.exit(2));
server.listen({ fd });
