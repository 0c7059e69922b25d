// `app_sdk!` names a folder with no ext-apps bundle in it: the error says what to install.
use mcp_runtime::app_sdk;
use mcp_runtime::apps::AppSdk;

fn main() {
    let _sdk: AppSdk = app_sdk!("no_such_folder/node_modules");
}
