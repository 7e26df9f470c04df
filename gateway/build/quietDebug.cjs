/**
 * Stands in for the `debug` package inside the bundled MQTT packet codec. mqtt-packet calls debug()
 * several times per packet; even switched off, each call allocates its arguments, which at tens of
 * thousands of messages a second is a measurable share of the gateway's garbage. The codec's trace
 * output is for developing the codec, not for running the gateway, so the bundle leaves it out.
 * CommonJS, like the `debug` package it replaces: the codec require()s it.
 */
const off = Object.assign(() => {}, { enabled: false, namespace: '', log: () => {} });
off.extend = () => off;

module.exports = function createDebug() {
  return off;
};
