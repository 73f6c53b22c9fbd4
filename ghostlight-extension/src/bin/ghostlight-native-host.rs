//! `ghostlight-native-host`: the native-messaging host the browser starts for the Ghostlight
//! extension. It relays between the extension (stdin/stdout) and the running Ghostlight
//! server (a Unix socket), and exits when either side closes.
#![forbid(unsafe_code)]

use std::process::ExitCode;

fn main() -> ExitCode {
    let runtime = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("ghostlight-native-host: no runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    let args: Vec<String> = std::env::args().collect();
    let result = runtime.block_on(ghostlight_extension::host::run(&args));
    // Reading stdin occupies a blocking thread that would hold a normal shutdown.
    runtime.shutdown_background();
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("ghostlight-native-host: {e}");
            ExitCode::FAILURE
        }
    }
}
