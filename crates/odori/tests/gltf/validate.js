// Run the Khronos glTF Validator on one .glb/.gltf (external files resolved beside it) and
// print its report as JSON on standard output: `node validate.js FILE`. Exit 0 whenever a
// report was made; the Rust test reads the counts.
const fs = require("fs");
const path = require("path");
const validator = require("gltf-validator");

const file = process.argv[2];
const bytes = new Uint8Array(fs.readFileSync(file));
validator
  .validateBytes(bytes, {
    uri: path.basename(file),
    maxIssues: 100000,
    externalResourceFunction: (uri) =>
      new Promise((resolve, reject) => {
        const full = path.resolve(path.dirname(file), decodeURIComponent(uri));
        fs.readFile(full, (err, data) => (err ? reject(err.toString()) : resolve(new Uint8Array(data))));
      }),
  })
  .then((report) => console.log(JSON.stringify(report)))
  .catch((e) => {
    console.error("validator failed: " + e);
    process.exit(2);
  });
