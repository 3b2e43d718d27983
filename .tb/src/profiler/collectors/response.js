const responseCollector = {
  name: "response",
  collect({ reply, redactor, profile }) {
    const headers = redactor.headers(reply.getHeaders());
    const length = headers["content-length"];
    return {
      status: reply.statusCode,
      headers,
      // Content-Length when sent; a streamed (chunked) response has none.
      size: typeof length === "string" ? Number(length) : null,
      aborted: profile.aborted
    };
  }
};
export {
  responseCollector
};
//# sourceMappingURL=response.js.map
