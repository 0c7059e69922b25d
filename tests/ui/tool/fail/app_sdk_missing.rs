// `app_sdk!` names a folder with no ext-apps bundle in it: the error says what to install.
use mcp_runtime::{AppSdk, app_sdk};

fn main() {
    let _sdk: AppSdk = app_sdk!("no_such_folder/node_modules");
}
