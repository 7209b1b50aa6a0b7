/**
 * jest's node environment with Node's own Float32Array in the test's sandbox. onnxruntime-node (the personal-data
 * model of redaction) hands back its outputs as Float32Arrays made outside the sandbox, and its JavaScript half,
 * loaded inside it, checks them with `instanceof Float32Array`: with two realms' constructors every inference
 * fails (microsoft/onnxruntime#16622). Outside jest there is one realm and nothing to do.
 */
const { TestEnvironment } = require('jest-environment-node');

class NodeEnvironmentWithHostArrays extends TestEnvironment {
  constructor(config, context) {
    super(config, context);
    this.global.Float32Array = Float32Array;
  }
}

module.exports = NodeEnvironmentWithHostArrays;
