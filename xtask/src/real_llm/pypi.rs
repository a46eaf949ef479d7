//! Downloads one pinned file of a package from the Python package index pip uses, through
//! the index's JSON API (PEP 691). `pip download` is not used for the sdist: it runs the
//! package's build backend to read metadata, which needs Python build dependencies and is
//! not what is wanted here.

use std::path::Path;

use reqwest::Url;
use serde_json::Value;
use tokio::io::AsyncWriteExt;

use super::outcome::{Failure, failed, missing};

/// The index pip would use: `$PIP_INDEX_URL`, else PyPI.
pub fn index_url(env: impl Fn(&str) -> Option<String>) -> String {
    env("PIP_INDEX_URL")
        .filter(|url| !url.trim().is_empty())
        .unwrap_or_else(|| "https://pypi.org/simple".to_owned())
}

/// Downloads `filename` of `package` to `dest` unless it is already there; says which.
pub async fn ensure_file(package: &str, filename: &str, dest: &Path) -> Result<(), Failure> {
    if dest.is_file() {
        println!("==> reusing cached {}", dest.display());
        return Ok(());
    }
    let client = match reqwest::Client::builder().build() {
        Ok(client) => client,
        Err(err) => return failed(format!("cannot start an HTTP client: {err}")),
    };
    let index = index_url(|name| std::env::var(name).ok());
    let (url, size) = locate(&client, &index, package, filename).await?;
    println!("==> downloading {url}");
    download(&client, &url, size, dest).await
}

/// The URL and size of `filename` in the index's project page.
async fn locate(
    client: &reqwest::Client,
    index: &str,
    package: &str,
    filename: &str,
) -> Result<(Url, Option<u64>), Failure> {
    let page = format!("{}/{package}/", index.trim_end_matches('/'));
    let response = client
        .get(&page)
        .header("accept", "application/vnd.pypi.simple.v1+json")
        .send()
        .await;
    let response = match response {
        Ok(response) if response.status().is_success() => response,
        Ok(response) => {
            return failed(format!(
                "the package index answered {} for {page}",
                response.status()
            ));
        }
        Err(err) => {
            return missing(format!(
                "cannot reach the Python package index at {page} ({err})"
            ));
        }
    };
    let bytes = match response.bytes().await {
        Ok(bytes) => bytes,
        Err(err) => return missing(format!("cannot read {page} ({err})")),
    };
    let body: Value = match serde_json::from_slice(&bytes) {
        Ok(body) => body,
        Err(err) => return failed(format!("{page} is not the index's JSON API: {err}")),
    };
    find_file(&body, filename, &page)
}

/// The URL (resolved against `page`) and size of `filename` in a PEP 691 project page.
fn find_file(page_json: &Value, filename: &str, page: &str) -> Result<(Url, Option<u64>), Failure> {
    let Some(entry) = page_json["files"]
        .as_array()
        .and_then(|files| files.iter().find(|f| f["filename"] == filename))
    else {
        return failed(format!("{page} does not list {filename}"));
    };
    let Some(href) = entry["url"].as_str() else {
        return failed(format!("{page} lists {filename} without a URL"));
    };
    let url = Url::parse(page).and_then(|base| base.join(href));
    match url {
        Ok(url) => Ok((url, entry["size"].as_u64())),
        Err(err) => failed(format!("{page} gives {filename} a bad URL {href:?}: {err}")),
    }
}

/// Streams `url` to `dest` through a `.part` file, checking the size the index announced.
async fn download(
    client: &reqwest::Client,
    url: &Url,
    size: Option<u64>,
    dest: &Path,
) -> Result<(), Failure> {
    let part = dest.with_extension("part");
    let mut response = match client.get(url.clone()).send().await {
        Ok(response) if response.status().is_success() => response,
        Ok(response) => return failed(format!("{url} answered {}", response.status())),
        Err(err) => return missing(format!("cannot download {url} ({err})")),
    };
    if let Some(parent) = dest.parent()
        && let Err(err) = tokio::fs::create_dir_all(parent).await
    {
        return failed(format!("cannot create {}: {err}", parent.display()));
    }
    let mut file = match tokio::fs::File::create(&part).await {
        Ok(file) => file,
        Err(err) => return failed(format!("cannot create {}: {err}", part.display())),
    };
    let mut written = 0u64;
    loop {
        match response.chunk().await {
            Ok(Some(bytes)) => {
                written += bytes.len() as u64;
                if let Err(err) = file.write_all(&bytes).await {
                    return failed(format!("cannot write {}: {err}", part.display()));
                }
            }
            Ok(None) => break,
            Err(err) => return failed(format!("the download of {url} broke off: {err}")),
        }
    }
    if let Err(err) = file.flush().await {
        return failed(format!("cannot write {}: {err}", part.display()));
    }
    if let Some(size) = size
        && size != written
    {
        return failed(format!(
            "{url} gave {written} bytes, the index announced {size}"
        ));
    }
    match tokio::fs::rename(&part, dest).await {
        Ok(()) => Ok(()),
        Err(err) => failed(format!(
            "cannot move the download to {}: {err}",
            dest.display()
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    #[test]
    fn a_relative_url_is_resolved_against_the_page() {
        let page = json!({"files": [
            {"filename": "a-1.tar.gz", "url": "../../packages/a-1.tar.gz", "size": 7},
            {"filename": "a-2.tar.gz", "url": "https://files.example/a-2.tar.gz"},
        ]});
        let base = "https://index.example/simple/a/";
        assert_eq!(
            find_file(&page, "a-1.tar.gz", base).unwrap(),
            (
                Url::parse("https://index.example/packages/a-1.tar.gz").unwrap(),
                Some(7)
            )
        );
        assert_eq!(
            find_file(&page, "a-2.tar.gz", base).unwrap(),
            (
                Url::parse("https://files.example/a-2.tar.gz").unwrap(),
                None
            )
        );
        assert_eq!(
            find_file(&page, "a-3.tar.gz", base),
            Err(Failure::Failed(format!("{base} does not list a-3.tar.gz")))
        );
    }

    #[test]
    fn pip_index_url_wins_over_pypi() {
        assert_eq!(index_url(|_| None), "https://pypi.org/simple");
        assert_eq!(
            index_url(|name| (name == "PIP_INDEX_URL").then(|| "https://mirror/simple".to_owned())),
            "https://mirror/simple"
        );
    }
}
