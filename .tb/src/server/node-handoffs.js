import { ServerResponse } from "node:http";
const CLOSE_GRACE_MS = 1e3;
function handOffToKernel(server) {
  server.on("checkExpectation", (request, response) => server.emit("request", request, response));
  server.on("connect", (request, socket) => {
    socket.on("error", () => socket.destroy());
    const response = new ServerResponse(request);
    response.shouldKeepAlive = false;
    response.assignSocket(socket);
    response.once("finish", () => {
      response.detachSocket(socket);
      socket.end();
      setTimeout(() => socket.destroy(), CLOSE_GRACE_MS).unref();
    });
    server.emit("request", request, response);
  });
}
export {
  handOffToKernel
};
//# sourceMappingURL=node-handoffs.js.map
