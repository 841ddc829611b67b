// The scripted model server lives in src/ (forge demo and box prove use it too).
export * from "../../src/scripted-model/server.js";
