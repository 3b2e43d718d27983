const LINGER_MS = 2e3;
const LINGER_BYTES = 64 * 1024 * 1024;
const lingering = /* @__PURE__ */ new WeakSet();
function closeAfterResponse(request, reply) {
  reply.header("connection", "close");
  const socket = request.raw.socket;
  if (!socket || socket.destroyed || lingering.has(socket)) return;
  lingering.add(socket);
  void socket.remoteAddress;
  socket.destroySoon = () => linger(socket, request.raw);
}
function linger(socket, body) {
  body.unpipe();
  body.removeAllListeners("data");
  body.resume();
  const startBytes = socket.bytesRead;
  const done = () => {
    clearInterval(watch);
    clearTimeout(deadline);
    socket.destroy();
  };
  const deadline = setTimeout(done, LINGER_MS);
  const watch = setInterval(() => {
    if (socket.bytesRead - startBytes > LINGER_BYTES) done();
  }, 50);
  socket.once("end", done);
  socket.once("close", done);
  socket.end();
}
export {
  LINGER_BYTES,
  LINGER_MS,
  closeAfterResponse
};
//# sourceMappingURL=lingering-close.js.map
